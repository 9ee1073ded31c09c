import fc from 'fast-check';
import { describeHttpsUrlProblem, serialiseHttpsUrl } from './is-https-url';

describe(describeHttpsUrlProblem.name, () => {
  it.each([
    ['a plain https URL', 'https://www.amazon.com/dp/B0BDHWDR12', null],
    ['non-ASCII in path and query', 'https://a.example/ä?q=€', null],
    ['CR/LF', 'https://a.example/a\r\nX: 1', 'must not contain control characters'],
    ['a TAB', 'https://a.example/\t', 'must not contain control characters'],
    ['a NUL', 'https://a.example/\u0000', 'must not contain control characters'],
    ['a C1 control', 'https://a.example/\u009b', 'must not contain control characters'],
    ['http', 'http://a.example/', 'must use https'],
    ['credentials', 'https://u:p@a.example/', 'must not carry credentials'],
    ['a bare host', 'https://localhost/', 'must name a public host'],
    ['a public IPv4 address', 'https://93.184.215.14/p', null],
    ['a public IPv6 address', 'https://[2606:4700::6810:84e5]/p', null],
    ...[
      ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data/'],
      ['a private IPv4 address', 'https://10.0.0.1/x'],
      ['a private IPv4 address with a port', 'https://192.168.1.1:8443/x'],
      ['loopback as one decimal number', 'https://2130706433/x'],
      ['loopback in hexadecimal parts', 'https://0x7f.1/x'],
      ['loopback in octal', 'https://0177.0.0.1/x'],
      ['loopback, short form', 'https://127.1/x'],
      ['the unspecified address', 'https://0.0.0.0/x'],
      ['carrier-grade NAT', 'https://100.64.0.1/x'],
      ['IPv6 loopback', 'https://[::1]/x'],
      ['IPv6 link-local', 'https://[fe80::1]/x'],
      ['IPv6 unique local', 'https://[fd00::1]/x'],
      ['a private IPv4 address mapped into IPv6', 'https://[::ffff:10.0.0.1]/x'],
      ['the metadata address mapped into IPv6, in hex', 'https://[::ffff:a9fe:a9fe]/x'],
    ].map(([name, url]): [string, string, string] => [name, url, 'must not point to a private']),
    ['a relative path', '/p/1', 'must be an absolute URL'],
    ['a number', 42, 'must be a URL'],
    ['too long', `https://a.example/${'a'.repeat(4096)}`, 'must be at most 4096 characters'],
    [
      'too long once percent-encoded',
      `https://a.example/${'é'.repeat(1000)}`,
      'must be at most 4096 characters once percent-encoded',
    ],
  ])('should judge %s', (_name, value, expected) => {
    expect(describeHttpsUrlProblem(value) ?? 'accepted').toContain(expected ?? 'accepted');
  });
});

describe(serialiseHttpsUrl.name, () => {
  it('should store accepted URLs in a form that is accepted again unchanged and header-safe', () => {
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: true, withFragments: true }),
        fc.string(),
        (url, extra) => {
          const typed = url.replace(/^http:/, 'https:') + encodeURIComponent(extra).slice(0, 20);
          if (describeHttpsUrlProblem(typed) !== null) return;
          const stored = serialiseHttpsUrl(typed) as string;
          expect(stored).toMatch(/^[\x21-\x7e]+$/);
          expect(describeHttpsUrlProblem(stored)).toBeNull();
          expect(serialiseHttpsUrl(stored)).toBe(stored);
        },
      ),
    );
  });

  it('should leave a refused value as it came, for the validator to name the problem', () => {
    expect(serialiseHttpsUrl('https://a.example/\r\n')).toBe('https://a.example/\r\n');
  });
});
