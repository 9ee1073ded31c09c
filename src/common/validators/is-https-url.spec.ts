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
