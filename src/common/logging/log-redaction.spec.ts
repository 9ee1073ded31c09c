import { REDACTED, scrubLogText } from './log-redaction';

describe(scrubLogText.name, () => {
  it.each([
    ['an API key', 'key lp_live_sk_AbC123xyz revoked', `key lp_live_sk_${REDACTED} revoked`],
    ['a test key', 'lp_test_sk_0123456789abcdef', `lp_test_sk_${REDACTED}`],
    ['a bearer credential', 'Authorization: Bearer abc.def', `Authorization: Bearer ${REDACTED}`],
    [
      "a full URL's query",
      'GET https://www.amazon.com/dp/B0X?tag=me-20&ref=abc failed',
      `GET https://www.amazon.com/dp/B0X?${REDACTED} failed`,
    ],
    ['a fragment', '"http://a.example/p#secret"', `"http://a.example/p?${REDACTED}"`],
    ['an IPv4 visitor address', 'from 203.0.113.7, again', `from ${REDACTED}, again`],
    ['an IPv6 visitor address', 'client 2001:db8::1 blocked', `client ${REDACTED} blocked`],
    [
      'a full IPv6 address',
      'client 2001:0db8:0000:0000:0000:ff00:0042:8329 x',
      `client ${REDACTED} x`,
    ],
  ])('should take out %s', (_what, text, expected) => {
    expect(scrubLogText(text)).toBe(expected);
  });

  it.each([
    ['a time', 'at 02:10:15.123Z'],
    ['a version', 'node v20.20.2'],
    ['a URL without a query', 'https://www.amazon.com/dp/B0X'],
    ['a link id', 'link 01JD8Z9Y3K4M5N6P7Q8R9S0T1V'],
  ])('should leave %s as it is', (_what, text) => {
    expect(scrubLogText(text)).toBe(text);
  });
});
