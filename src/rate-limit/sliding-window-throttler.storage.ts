import type { ThrottlerStorage } from '@nestjs/throttler';
import { Clock } from '../common/clock';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { KvStore } from '../kv/kv-store';
import { MemoryKvStore } from '../kv/memory-kv-store';
import { describeWindow, RateLimitVerdict, SlidingLogDecision } from './sliding-log';
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

/** A failing store is reported at most this often (its outage itself is logged by the store). */
const STORE_WARNING_INTERVAL_MS = 60_000;

/**
 * @nestjs/throttler's storage over our key-value store: the exact sliding log of sliding-log.ts,
 * run as one atomic script (Redis, shared by every node; the in-process store when REDIS_URL is
 * unset), on the app clock. Not the package's in-memory storage, which counts in one process
 * and blocks for a fixed time from the refused request rather than until a slot frees.
 *
 * While Redis is unreachable the same script runs on an in-process store of this node's own:
 * the limits keep applying, per node instead of across nodes, and the API keeps answering
 * (a Redis outage must not become an API outage). Those windows start empty and are
 * forgotten when Redis is back, whose windows never saw the requests counted here.
 *
 * `blockDuration` is not used: a sliding log refuses exactly until the oldest entry that fills
 * the window slides out, and refused requests are not logged.
 */
export class SlidingWindowThrottlerStorage implements ThrottlerStorage {
  private readonly warnings: ThrottledLogger;
  private local: MemoryKvStore;

  constructor(
    private readonly store: KvStore,
    private readonly clock: Clock,
  ) {
    this.warnings = new ThrottledLogger(
      SlidingWindowThrottlerStorage.name,
      STORE_WARNING_INTERVAL_MS,
      clock,
    );
    this.local = this.newLocalWindows();
    store.onReachableAgain(() => {
      void this.local.close();
      this.local = this.newLocalWindows();
    });
  }

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
   * hash slot. While the store is unreachable, this node's own windows decide.
   */
  hitTogether(windows: readonly WindowSpec[], windowMs: number): Promise<RateLimitVerdict[]> {
    return this.hitAt(windows, windowMs, this.clock.nowMs());
  }

  private async hitAt(
    windows: readonly WindowSpec[],
    windowMs: number,
    nowMs: number,
  ): Promise<RateLimitVerdict[]> {
    const result = await this.decide(windows, nowMs, windowMs);
    return result.windows.map((state, i) =>
      describeWindow(state, windows[i].limit, result.allowed, nowMs, windowMs),
    );
  }

  /** The shared windows, or this node's own while the store cannot answer. */
  private async decide(
    windows: readonly WindowSpec[],
    nowMs: number,
    windowMs: number,
  ): Promise<SlidingLogDecision> {
    if (this.store.isReachable()) {
      try {
        return await hitSlidingWindows(this.store, windows, nowMs, windowMs);
      } catch (error) {
        this.warnings.warn('store', 'API rate limits counted in-process, store unavailable', error);
      }
    }
    return hitSlidingWindows(this.local, windows, nowMs, windowMs);
  }

  /** Windows of this node alone, expiring on the app clock like the shared ones. */
  private newLocalWindows(): MemoryKvStore {
    return new MemoryKvStore(() => this.clock.nowMs());
  }
}
