import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';

/**
 * `Authorization: Bearer <key>` as RFC 9110 section 11.4 spells credentials: the scheme is a
 * case-insensitive token (`bearer` and `BEARER` are the same scheme) followed by 1*SP. Only
 * spaces separate them, as the grammar says; Node has already trimmed the value's outer
 * whitespace. The key itself stays case-sensitive: its format check comes later.
 */
const BEARER_CREDENTIALS = /^bearer +(\S+) *$/i;

/** The key of a Bearer Authorization header, or null when there is none. */
export function findBearerKey(authorization: string | undefined): string | null {
  return authorization === undefined ? null : (BEARER_CREDENTIALS.exec(authorization)?.[1] ?? null);
}

/** The key of a Bearer Authorization header, or 401 UNAUTHORIZED saying what is wrong with it. */
export function extractBearerKey(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === '') {
    throw new AppError(
      ErrorCode.UNAUTHORIZED,
      'Missing Authorization header; send "Authorization: Bearer <API key>".',
    );
  }
  const match = BEARER_CREDENTIALS.exec(authorization);
  if (match === null) {
    throw new AppError(
      ErrorCode.UNAUTHORIZED,
      'The Authorization header must be "Bearer <API key>".',
    );
  }
  return match[1];
}
