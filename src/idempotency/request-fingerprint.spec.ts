import * as fc from 'fast-check';
import { canonicalJson, IDEMPOTENCY_KEY_PATTERN, requestFingerprint } from './request-fingerprint';

describe(requestFingerprint.name, () => {
  it('should not depend on the order of object keys', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (body) => {
        const reversed = Object.fromEntries(Object.entries(body).reverse());
        expect(requestFingerprint('POST', '/v1/links', reversed)).toBe(
          requestFingerprint('POST', '/v1/links', body),
        );
      }),
    );
  });

  it('should tell apart bodies, routes and methods', () => {
    const base = requestFingerprint('POST', '/v1/links', { originalUrl: 'https://a.example/' });
    expect(requestFingerprint('POST', '/v1/links', { originalUrl: 'https://b.example/' })).not.toBe(
      base,
    );
    expect(
      requestFingerprint('POST', '/v1/links/bulk', { originalUrl: 'https://a.example/' }),
    ).not.toBe(base);
    expect(requestFingerprint('PUT', '/v1/links', { originalUrl: 'https://a.example/' })).not.toBe(
      base,
    );
  });
});

describe(canonicalJson.name, () => {
  it('should parse back to the value it serialises', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('IDEMPOTENCY_KEY_PATTERN', () => {
  it.each([
    ['a ULID', '01JH2Z8Q6N3V4W5X6Y7Z8A9BCD', true],
    ['a UUID', '3f1c2a9e-4b7d-4c1a-9f0e-2d6b8a7c5e41', true],
    ['255 characters', 'k'.repeat(255), true],
    ['empty', '', false],
    ['256 characters', 'k'.repeat(256), false],
    ['a space', 'my key', false],
    ['a control character', 'key\u0001', false],
    ['non-ASCII', 'clé', false],
  ])('should judge %s', (_name, key, isValid) => {
    expect(IDEMPOTENCY_KEY_PATTERN.test(key)).toBe(isValid);
  });
});
