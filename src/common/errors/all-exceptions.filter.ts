import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMIT_BYTES } from '../http/json-body';
import { AppError, ErrorDetails } from './app-error';
import {
  databaseStatementTimeoutError,
  databaseUnavailableError,
  isDatabaseUnavailable,
  isStatementTimeout,
} from './database-unavailable';
import { ErrorCode } from './error-code';
import { isKvUnavailable, kvUnavailableError } from './kv-unavailable';

/** What every unexpected error answers; its stack goes to the log only. */
export const UNEXPECTED_ERROR_MESSAGE = 'An unexpected error occurred.';

export interface ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string; details?: ErrorDetails; requestId: string };
}

/** The [S] error envelope of an AppError. */
export function toErrorBody(appError: AppError, requestId: string): ErrorBody {
  return {
    success: false,
    error: {
      code: appError.code,
      message: appError.message,
      ...(appError.details ? { details: appError.details } : {}),
      requestId,
    },
  };
}

/**
 * The one place an error becomes a response: AppError, validation, malformed JSON, unknown
 * routes, framework errors and the unexpected, all in the [S] error envelope with a requestId.
 * Unexpected errors are logged with their stack; the body never carries one.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const appError = this.toAppError(exception, request);
    if (appError.headers) void reply.headers(appError.headers);
    void reply.status(appError.status).send(toErrorBody(appError, String(request.id)));
  }

  private toAppError(exception: unknown, request: FastifyRequest): AppError {
    if (exception instanceof AppError) return exception;
    const status = statusOf(exception);
    if (status !== undefined && status < 500) return fromClientStatus(status, exception, request);
    if (isKvUnavailable(exception)) {
      this.logger.warn(
        `Key-value store unavailable on ${request.method} ${request.routeOptions.url ?? '(no route)'} [${String(request.id)}]`,
      );
      return kvUnavailableError();
    }
    if (isStatementTimeout(exception)) {
      this.logger.warn(
        `Statement timeout on ${request.method} ${request.routeOptions.url ?? '(no route)'} [${String(request.id)}]: ${String(exception)}`,
      );
      return databaseStatementTimeoutError();
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn(
        `Database unavailable on ${request.method} ${request.routeOptions.url ?? '(no route)'} [${String(request.id)}]: ${String(exception)}`,
      );
      return databaseUnavailableError();
    }
    this.logger.error(
      `Unexpected error on ${request.method} ${request.routeOptions.url ?? '(no route)'} [${String(request.id)}]`,
      exception instanceof Error ? exception.stack : String(exception),
    );
    return new AppError(ErrorCode.INTERNAL_ERROR, UNEXPECTED_ERROR_MESSAGE);
  }
}

/** Nest's HttpException and Fastify's own errors (bad JSON, body too large) both carry a status. */
function statusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  if (typeof exception === 'object' && exception !== null && 'statusCode' in exception) {
    const { statusCode } = exception;
    if (typeof statusCode === 'number') return statusCode;
  }
  return undefined;
}

function fromClientStatus(status: number, exception: unknown, request: FastifyRequest): AppError {
  if (status === 404) {
    return new AppError(ErrorCode.NOT_FOUND, `No route for ${request.method} ${request.url}.`);
  }
  if (status === 401) return new AppError(ErrorCode.UNAUTHORIZED, 'Authentication required.');
  if (status === 429) return new AppError(ErrorCode.RATE_LIMIT_EXCEEDED, 'Too many requests.');
  if (status === 413) {
    return new AppError(
      ErrorCode.PAYLOAD_TOO_LARGE,
      `The request body is larger than ${BODY_LIMIT_BYTES} bytes.`,
    );
  }
  const message = describeClientError(status, exception);
  // [S]: a VALIDATION_ERROR carries details; a body-level problem is reported on `body`.
  return new AppError(ErrorCode.VALIDATION_ERROR, message, { body: [message] });
}

function describeClientError(status: number, exception: unknown): string {
  const code = (exception as { code?: unknown }).code;
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || exception instanceof SyntaxError) {
    return 'The request body is not valid JSON.';
  }
  if (status === 415) return 'Send the request body as application/json.';
  const message = exception instanceof Error ? exception.message : '';
  return message !== '' ? message : 'The request is invalid.';
}
