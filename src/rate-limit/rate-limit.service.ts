import { Injectable, Logger } from '@nestjs/common';
import type { RateLimitBucket } from '../common/access/access.decorators';
import type { CallerPlan } from '../common/access/auth-context';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { KvStore } from '../kv/kv-store';
import { describeWindow, pickBindingWindow, RateLimitVerdict } from './sliding-log';
import { hitSlidingWindows, WindowSpec } from './sliding-windows';

export const RATE_WINDOW_MS = 60_000;

/**
 * Which per-key window(s) a route counts in (DESIGN section 5): `route` replaces the general
 * bucket on POST /route; `bulk` counts in the general bucket and in the bulk bucket.
 */
export type { RateLimitBucket };

function windowsFor(bucket: RateLimitBucket, keyId: string, plan: CallerPlan): WindowSpec[] {
  // The {keyId} hash tag keeps all of a key's windows in one Redis Cluster slot.
  const window = (name: string, limit: number | null): WindowSpec[] =>
    limit === null ? [] : [{ key: `rl:{${keyId}}:${name}`, limit }];
  switch (bucket) {
    case 'general':
      return window('general', plan.apiRequestsPerMinute);
    case 'route':
      return window('route', plan.routeRequestsPerMinute);
    case 'bulk':
      return [
        ...window('general', plan.apiRequestsPerMinute),
        ...window('bulk', plan.bulkRequestsPerMinute),
      ];
  }
}

export function rateLimitHeaders(verdict: RateLimitVerdict): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(verdict.limit),
    'X-RateLimit-Remaining': String(verdict.remaining),
    'X-RateLimit-Reset': String(verdict.resetAtSeconds),
  };
}

@Injectable()
export class RateLimitService {
  private readonly logger = new Logger(RateLimitService.name);

  constructor(
    private readonly store: KvStore,
    private readonly clock: Clock,
  ) {}

  /**
   * Admits one request of this key in its bucket, or throws 429 RATE_LIMIT_EXCEEDED with
   * Retry-After. Returns the X-RateLimit-* headers of the binding window (none when the plan
   * sets no limit for the bucket).
   */
  async admit(
    bucket: RateLimitBucket,
    keyId: string,
    plan: CallerPlan,
  ): Promise<Record<string, string>> {
    const windows = windowsFor(bucket, keyId, plan);
    if (windows.length === 0) return {};
    const nowMs = this.clock.nowMs();
    const result = await hitSlidingWindows(this.store, windows, nowMs, RATE_WINDOW_MS).catch(
      (error: unknown) => {
        this.logger.error(`Rate limiter unavailable: ${String(error)}`);
        throw new AppError(ErrorCode.KV_ERROR, 'The rate limiter is unavailable; retry shortly.');
      },
    );
    const verdict = pickBindingWindow(
      result.windows.map((state, i) =>
        describeWindow(state, windows[i].limit, result.allowed, nowMs, RATE_WINDOW_MS),
      ),
    );
    const headers = rateLimitHeaders(verdict);
    if (!result.allowed) {
      throw new AppError(
        ErrorCode.RATE_LIMIT_EXCEEDED,
        `Rate limit of ${verdict.limit} requests per minute exceeded for this API key; retry in ${verdict.retryAfterSeconds} seconds.`,
        undefined,
        { ...headers, 'Retry-After': String(verdict.retryAfterSeconds) },
      );
    }
    return headers;
  }
}
