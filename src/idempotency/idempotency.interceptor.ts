import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, Observable, of, throwError } from 'rxjs';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { KvStore } from '../kv/kv-store';
import { CLAIM_KEY_SCRIPT } from '../kv/claim-key.script';
import { IDEMPOTENCY_KEY_PATTERN, requestFingerprint } from './request-fingerprint';

const IDEMPOTENCY_HEADER = 'idempotency-key';
const REPLAYED_HEADER = 'Idempotent-Replayed';
/** How long a finished answer is replayed (and a key stays taken). */
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/** What an idempotency key holds: a request still running, or its finished answer. */
type IdempotencyRecord =
  { state: 'running'; fingerprint: string } | { state: 'done'; fingerprint: string; body: unknown };

/**
 * Safe retries of creates (`Idempotency-Key`, as Stripe's API has it): within 24 h the same
 * key with the same request answers the first answer again, with `Idempotent-Replayed:
 * true`, and creates nothing; the same key with another request is 422
 * IDEMPOTENCY_KEY_REUSED; a second request while the first runs is 409
 * IDEMPOTENCY_KEY_IN_USE. Keys are per creator and environment. Only successful answers are
 * kept: a refused or failed request frees its key, so the client can fix and retry.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly store: KvStore) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined || request.auth === undefined) return next.handle();
    const key = checkedKey(header);
    const storeKey = `idem:${request.auth.creatorId}:${request.auth.environment}:${key}`;
    const fingerprint = requestFingerprint(
      request.method,
      request.routeOptions.url ?? request.url,
      request.body,
    );
    const claim: IdempotencyRecord = { state: 'running', fingerprint };
    const existing = await this.store.runScript(
      CLAIM_KEY_SCRIPT,
      [storeKey],
      [JSON.stringify(claim), IDEMPOTENCY_TTL_SECONDS],
    );
    if (existing !== null) {
      return of(
        replayOf(JSON.parse(existing) as IdempotencyRecord, fingerprint, http.getResponse()),
      );
    }
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        const done: IdempotencyRecord = { state: 'done', fingerprint, body };
        await this.store.setString(storeKey, JSON.stringify(done), IDEMPOTENCY_TTL_SECONDS);
        return body;
      }),
      catchError((error: unknown) =>
        from(this.store.deleteKeys([storeKey]).catch(() => undefined)).pipe(
          mergeMap(() => throwError(() => error)),
        ),
      ),
    );
  }
}

function checkedKey(header: string | string[]): string {
  const key = Array.isArray(header) ? header.join(',') : header;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new AppError(ErrorCode.VALIDATION_ERROR, 'Invalid Idempotency-Key header.', {
      'Idempotency-Key': ['must be 1 to 255 printable ASCII characters, without spaces'],
    });
  }
  return key;
}

function replayOf(record: IdempotencyRecord, fingerprint: string, reply: FastifyReply): unknown {
  if (record.fingerprint !== fingerprint) {
    throw new AppError(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
      'This Idempotency-Key was used with another request in the last 24 hours; use a new key for a new request.',
    );
  }
  if (record.state === 'running') {
    throw new AppError(
      ErrorCode.IDEMPOTENCY_KEY_IN_USE,
      'A request with this Idempotency-Key is still running; retry when it has answered.',
    );
  }
  void reply.header(REPLAYED_HEADER, 'true');
  return record.body;
}
