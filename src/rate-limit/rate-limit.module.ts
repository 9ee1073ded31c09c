import { Module } from '@nestjs/common';
import { ThrottlerModule, ThrottlerOptions } from '@nestjs/throttler';
import { planRateLimit, RateLimitBucket } from '../common/access/access.decorators';
import { Clock } from '../common/clock';
import { KvStore } from '../kv/kv-store';
import { SlidingWindowThrottlerStorage } from './sliding-window-throttler.storage';

/** The API limits are per sliding minute (the plan row's `…RequestsPerMinute`). */
const RATE_WINDOW_MS = 60_000;

/**
 * The API buckets as named throttlers, in the order the binding window is picked on a tie.
 * `general` counts every authenticated route at the plan's limit; `route` and `bulk` count
 * nothing (no limit) until a route opts in with @Throttle and the plan's column.
 */
const THROTTLERS: Array<ThrottlerOptions & { name: RateLimitBucket }> = [
  { name: 'general', ttl: RATE_WINDOW_MS, limit: planRateLimit('apiRequestsPerMinute') },
  { name: 'route', ttl: RATE_WINDOW_MS, limit: Number.POSITIVE_INFINITY },
  { name: 'bulk', ttl: RATE_WINDOW_MS, limit: Number.POSITIVE_INFINITY },
];

/**
 * @nestjs/throttler with our storage (exact sliding log over the key-value store: Redis when
 * REDIS_URL is set, else the in-process store). The guard, ApiThrottlerGuard, is registered
 * in app.module.ts after the API gate, whose authentication it needs.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [KvStore, Clock],
      useFactory: (store: KvStore, clock: Clock) => ({
        storage: new SlidingWindowThrottlerStorage(store, clock),
        throttlers: THROTTLERS,
      }),
    }),
  ],
  exports: [ThrottlerModule],
})
export class RateLimitModule {}
