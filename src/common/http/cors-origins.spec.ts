import { isAllowedOrigin } from './cors-origins';

// The production default of CORS_ORIGINS.
const DEFAULT_ORIGINS = ['https://linkpilot.io', 'https://*.linkpilot.io'];
const WILDCARD_ONLY = ['https://*.linkpilot.io'];

describe(isAllowedOrigin.name, () => {
  it.each<[string, string, string[], boolean]>([
    ['the origin is listed exactly', 'https://linkpilot.io', DEFAULT_ORIGINS, true],
    ['a local origin is listed exactly', 'http://localhost:5173', ['http://localhost:5173'], true],
    [
      'only the port differs from an exact entry',
      'http://localhost:5174',
      ['http://localhost:5173'],
      false,
    ],
    ['the list is empty', 'https://linkpilot.io', [], false],

    ['a subdomain meets the wildcard', 'https://app.linkpilot.io', WILDCARD_ONLY, true],
    ['a nested subdomain meets the wildcard', 'https://eu.app.linkpilot.io', WILDCARD_ONLY, true],
    ['the apex meets only the wildcard', 'https://linkpilot.io', WILDCARD_ONLY, false],
    [
      'the host only starts with the domain',
      'https://linkpilot.io.evil.com',
      DEFAULT_ORIGINS,
      false,
    ],
    [
      'a subdomain of a look-alike host',
      'https://app.linkpilot.io.evil.com',
      DEFAULT_ORIGINS,
      false,
    ],
    ['the host only ends with the domain name', 'https://evillinkpilot.io', DEFAULT_ORIGINS, false],
    ['the scheme is http for a subdomain', 'http://app.linkpilot.io', DEFAULT_ORIGINS, false],
    ['the scheme is http for the apex', 'http://linkpilot.io', DEFAULT_ORIGINS, false],
    [
      'a subdomain adds a port the pattern does not name',
      'https://app.linkpilot.io:8443',
      DEFAULT_ORIGINS,
      false,
    ],
    ['the origin is garbage', 'not a url', DEFAULT_ORIGINS, false],
    ['the origin is empty', '', DEFAULT_ORIGINS, false],
    ['the origin is the opaque "null"', 'null', DEFAULT_ORIGINS, false],
    [
      'the origin has only a dot before the domain',
      'https://.linkpilot.io',
      DEFAULT_ORIGINS,
      false,
    ],
  ])('should decide when %s', (_name, origin, allowed, expected) => {
    expect(isAllowedOrigin(origin, allowed)).toBe(expected);
  });
});
