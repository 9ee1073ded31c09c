import { AppError } from '../common/errors/app-error';
import * as fc from 'fast-check';
import { extractBearerKey, findBearerKey } from './bearer-credentials';

const KEY = `lp_live_sk_${'00'.repeat(16)}6780541f`;

function failureOf(authorization: string | undefined): AppError {
  try {
    extractBearerKey(authorization);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`extractBearerKey accepted ${JSON.stringify(authorization)}`);
}

describe(extractBearerKey.name, () => {
  it.each([
    ['the canonical spelling', `Bearer ${KEY}`],
    ['a lower-case scheme', `bearer ${KEY}`],
    ['an upper-case scheme', `BEARER ${KEY}`],
    ['a mixed-case scheme', `bEaReR ${KEY}`],
    ['several spaces after the scheme (1*SP)', `Bearer    ${KEY}`],
    ['trailing spaces', `Bearer ${KEY}  `],
  ])('should return the key when the header has %s', (_name, authorization) => {
    expect(extractBearerKey(authorization)).toBe(KEY);
  });

  it('should keep the key exactly as sent when the scheme is matched case-insensitively', () => {
    // The key's own format check is case-sensitive; the scheme's case must not leak into it.
    expect(extractBearerKey(`BEARER ${KEY.toUpperCase()}`)).toBe(KEY.toUpperCase());
  });

  it.each([
    ['there is no header', undefined],
    ['the header is empty', ''],
    ['the header is only spaces', '   '],
  ])('should answer 401 naming the missing header when %s', (_name, authorization) => {
    const error = failureOf(authorization);

    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.message).toContain('Missing Authorization header');
  });

  it.each([
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['the scheme alone', 'Bearer'],
    ['the scheme and a space', 'bearer '],
    ['no space after the scheme', `Bearer${KEY}`],
    ['a scheme that only starts with Bearer', `Bearerx ${KEY}`],
    ['a tab instead of a space (RFC 9110 allows only SP)', `Bearer\t${KEY}`],
    ['two credentials', `Bearer ${KEY} ${KEY}`],
    ['the key before the scheme', `${KEY} Bearer`],
  ])('should answer 401 naming the expected form when the header has %s', (_name, header) => {
    const error = failureOf(header);

    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.message).toBe('The Authorization header must be "Bearer <API key>".');
  });

  it('should never echo the key in its message when refusing a header', () => {
    expect(failureOf(`Token ${KEY}`).message).not.toContain(KEY);
  });
});

describe(findBearerKey.name, () => {
  it('should find the key exactly where extractBearerKey accepts the header, else null', () => {
    const header = fc.oneof(
      fc.constant(undefined),
      fc.string(),
      fc
        .tuple(fc.constantFrom('Bearer', 'bearer', 'Token', ''), fc.stringMatching(/^ {0,3}$/))
        .chain(([scheme, gap]) => fc.string().map((key) => `${scheme}${gap}${key}`)),
    );
    fc.assert(
      fc.property(header, (authorization) => {
        let expected: string | null;
        try {
          expected = extractBearerKey(authorization);
        } catch {
          expected = null;
        }
        expect(findBearerKey(authorization)).toBe(expected);
      }),
    );
  });
});
