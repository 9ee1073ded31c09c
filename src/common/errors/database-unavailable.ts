import { AppError } from './app-error';
import { ErrorCode } from './error-code';

/** Seconds a client should wait before retrying a call the database could not serve. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

export const DATABASE_UNAVAILABLE_MESSAGE =
  'The database is unavailable or did not answer in time; retry shortly.';

export function databaseUnavailableError(): AppError {
  return new AppError(ErrorCode.DATABASE_UNAVAILABLE, DATABASE_UNAVAILABLE_MESSAGE, undefined, {
    'retry-after': String(DATABASE_RETRY_AFTER_SECONDS),
  });
}

const DATABASE_STATEMENT_TIMEOUT_MESSAGE =
  'A database statement of this call ran longer than its statement timeout ' +
  '(DATABASE_STATEMENT_TIMEOUT_MS) and was cancelled; the database is up. Retry shortly.';

export function databaseStatementTimeoutError(): AppError {
  return new AppError(
    ErrorCode.DATABASE_STATEMENT_TIMEOUT,
    DATABASE_STATEMENT_TIMEOUT_MESSAGE,
    undefined,
    { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}

/**
 * Whether PostgreSQL cancelled a statement at its statement_timeout (SQLSTATE 57014 with
 * that reason; a cancel by an operator has the same code and another message): the
 * database answered, the statement was too slow. Reads the error's shape only, through
 * TypeORM's driverError and causes.
 */
export function isStatementTimeout(error: unknown): boolean {
  for (let cause = error, depth = 0; cause !== null && cause !== undefined && depth < 4; depth++) {
    if (typeof cause !== 'object') return false;
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (code === '57014' && typeof message === 'string' && /statement timeout/.test(message)) {
      return true;
    }
    cause =
      (cause as { driverError?: unknown }).driverError ?? (cause as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Whether an error means PostgreSQL could not be reached or did not answer in time (as
 * opposed to a bug, or a statement it refused): then the call is worth retrying, and answers
 * 503 DATABASE_UNAVAILABLE with Retry-After rather than 500. Reads the error's shape only
 * (TypeORM's QueryFailedError carries the driver's error; node-postgres sets `code` to a
 * SQLSTATE or a socket errno), so common needs no database import.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isStatementTimeout(error)) return false;
  for (let cause = error, depth = 0; cause !== null && cause !== undefined && depth < 4; depth++) {
    if (typeof cause !== 'object') return false;
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_CODES.test(code)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    cause =
      (cause as { driverError?: unknown }).driverError ?? (cause as { cause?: unknown }).cause;
  }
  return false;
}

// SQLSTATE 08xxx (connection exception), 57014 (query_canceled: by an operator, or by a
// statement timeout, which isStatementTimeout tells apart), 57P01-03
// (shut down, crash, cannot connect now), 53300 (too many connections); socket errnos.
const UNAVAILABLE_CODES =
  /^(08\w{3}|57014|57P0[1-3]|53300|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND)$/;

// node-postgres's own words for a pool or client that gave up waiting.
const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection timeout|Client has encountered a connection error/i;
