import fc from 'fast-check';
import { Filler, hostileChar, Text } from './values';

/**
 * Hosts a link may point at: merchants of the knowledge base (so the link is routed and its
 * routed URL is built from the input), unknown shops (passthrough), IDN hosts in Unicode and
 * in punycode, odd spellings of a host (upper case, trailing dot, explicit port), and IPs.
 */
const MERCHANT_HOSTS = ['www.amazon.com', 'www.amazon.co.uk', 'www.amazon.in', 'www.asos.com'];
const OTHER_HOSTS = [
  'shop.example.com',
  'bücher.example',
  'xn--bcher-kva.example',
  'пример.испытание',
  '例え.テスト',
  '☃.example.net',
  'WWW.AMAZON.COM',
  'www.amazon.com.',
  'www.amazon.com:443',
  'shop.example.com:8443',
  '93.184.216.34',
  '[2001:db8::1]',
];

/** Product paths the merchant parsers know, and paths they have never seen. */
const pathArb: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^B0[0-9A-Z]{8}$/).map((asin) => `/dp/${asin}`),
  fc.stringMatching(/^B0[0-9A-Z]{8}$/).map((asin) => `/Some-Product-Name/dp/${asin}/ref=sr_1_3`),
  fc.integer({ min: 100_000_000, max: 999_999_999 }).map((id) => `/prd/${id}`),
  fc
    .array(
      fc.oneof(
        fc.webSegment(),
        fc.constantFrom(
          '..',
          '.',
          '',
          '%2e%2e',
          '%2F',
          ';p=1',
          'a b',
          'café',
          '€',
          '😀',
          '%ZZ',
          '%',
        ),
      ),
      { maxLength: 5 },
    )
    .map((segments) => `/${segments.join('/')}`),
);

/** Query values as creators paste them: accents, currency signs, emoji, raw and pre-encoded. */
const queryValueArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'café€',
    'crème brûlée',
    '東京',
    '😀🎉',
    '%E2%82%AC',
    '100%',
    'a+b',
    'x=y',
    '',
    'ñ',
  ),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.webQueryParameters(),
);

const queryArb: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(fc.constantFrom('kw', 'tag', 'ref', 'q', 'utm_source', 'a', 'é'), queryValueArb),
    {
      maxLength: 4,
    },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));

const fragmentArb: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.constantFrom('#frag', '#café', '#😀', '#a b'),
);

/** An https URL a creator could plausibly paste, however unusual its characters. */
const plausibleUrl: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...MERCHANT_HOSTS) },
      { weight: 2, arbitrary: fc.constantFrom(...OTHER_HOSTS) },
      { weight: 1, arbitrary: fc.domain() },
    ),
    pathArb,
    queryArb,
    fragmentArb,
  )
  .map(([host, path, query, fragment]) => `https://${host}${path}${query}${fragment}`);

/**
 * A plausible URL with something wrong put into it at a random place: a control character
 * (CR, LF, TAB, NUL, C1), a lone surrogate, a space; or a wrong scheme, credentials, no
 * host, or a length over the 4096 limit. These should be refused, never stored.
 */
const hostileUrl: fc.Arbitrary<Text> = fc.oneof(
  fc.tuple(plausibleUrl, hostileChar, fc.nat()).map(([url, char, at]) => {
    const index = 8 + (at % Math.max(1, url.length - 8));
    return url.slice(0, index) + char + url.slice(index);
  }),
  plausibleUrl.map((url) => url.replace('https://', 'http://')),
  plausibleUrl.map((url) => url.replace('https://', 'https://user:pass@')),
  fc.constantFrom(
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'https://',
    'https:///dp/B000000000',
    'https://localhost/p',
    '//www.amazon.com/dp/B0BDHWDR12',
    'www.amazon.com/dp/B0BDHWDR12',
    ' https://www.amazon.com/dp/B0BDHWDR12 ',
    'HTTPS://WWW.AMAZON.COM/DP/B0BDHWDR12',
    'https://www.amazon.com/dp/B0BDHWDR12\r\nSet-Cookie: x=1',
    'https://www.amazon.com/dp/B0BDHWDR12?kw=\u0085',
    'https://shop.example.com/\ud800',
  ),
  fc
    .integer({ min: 4_000, max: 20_000 })
    .map((count) => new Filler('a', count, 'https://shop.example.com/')),
);

/** Mostly plausible URLs, a share of hostile ones. */
export const linkUrl: fc.Arbitrary<Text> = fc.oneof(
  { weight: 3, arbitrary: plausibleUrl },
  { weight: 1, arbitrary: hostileUrl },
);
