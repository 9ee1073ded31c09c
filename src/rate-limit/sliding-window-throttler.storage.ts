import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { KvStore } from '../kv/kv-store';
import { describeWindow, RateLimitVerdict } from './sliding-log';
import { hitSlidingWindows, WindowSpec } from './sliding-windows';

/** What ThrottlerStorage.increment answers (the package's index does not export its name). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * A verdict in @nestjs/throttler's terms: hits in the window (at most the limit), and seconds
 * from now until X-RateLimit-Reset and until Retry-After.
 */
export function toThrottlerRecord(
  verdict: RateLimitVerdict,
  nowMs: number,
): ThrottlerStorageRecord {
  return {
    totalHits: verdict.limit - verdict.remaining,
    timeToExpire: Math.max(0, Math.ceil(verdict.resetAtSeconds - nowMs / 1000)),
    isBlocked: !verdict.allowed,
    timeToBlockExpire: verdict.retryAfterSeconds,
  };
}

/**
 * @nestjs/throttler's storage over our key-value store: the exact sliding log of sliding-log.ts,
 * run as one atomic script (Redis, shared by every node; the in-process store when REDIS_URL is
 * unset), on the app clock. Not the package's in-memory storage, which counts in one process
 * and blocks for a fixed time from the refused request rather than until a slot frees.
 *
 * `blockDuration` is not used: a sliding log refuses exactly until the oldest entry that fills
 * the window slides out, and refused requests are not logged.
 */
export class SlidingWindowThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger(SlidingWindowThrottlerStorage.name);

  constructor(
    private readonly store: KvStore,
    private readonly clock: Clock,
  ) {}

  /**
   * ThrottlerStorage: one window, `ttl` milliseconds long (the API throttler hits its windows
   * with hitTogether). `blockDuration` does not apply to a sliding log (see above).
   */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    _throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const nowMs = this.clock.nowMs();
    const [verdict] = await this.hitAt([{ key, limit }], ttl, nowMs);
    return toThrottlerRecord(verdict, nowMs);
  }

  /**
   * Admits the request in every window or in none, in one round trip (a bulk request counts in
   * the general and the bulk window). One verdict per window, in order. All keys must share a
   * hash slot. Throws 503 KV_ERROR while the store is unreachable.
   */
  hitTogether(windows: readonly WindowSpec[], windowMs: number): Promise<RateLimitVerdict[]> {
    return this.hitAt(windows, windowMs, this.clock.nowMs());
  }

  private async hitAt(
    windows: readonly WindowSpec[],
    windowMs: number,
    nowMs: number,
  ): Promise<RateLimitVerdict[]> {
    const result = await hitSlidingWindows(this.store, windows, nowMs, windowMs).catch(
      (error: unknown) => {
        this.logger.error(`Rate limiter unavailable: ${String(error)}`);
        throw new AppError(ErrorCode.KV_ERROR, 'The rate limiter is unavailable; retry shortly.');
      },
    );
    return result.windows.map((state, i) =>
      describeWindow(state, windows[i].limit, result.allowed, nowMs, windowMs),
    );
  }
}
