import { ERROR_STATUS, ErrorCode } from './error-code';

/** Field name -> messages, the [S] `details` of a VALIDATION_ERROR. */
export type ErrorDetails = Record<string, string[]>;

/** The one error type feature code throws; the global filter turns it into the [S] error body. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
    /** Extra response headers, e.g. Retry-After on a 429. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}
