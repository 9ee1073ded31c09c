import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { configToken } from '../config/config.module';
import { KvConfig, redactUrl } from '../config/env';
import { KvStore } from './kv-store';
import { MemoryKvStore } from './memory-kv-store';
import { RedisKvStore } from './redis-kv-store';

const CONNECT_WAIT_MS = 2000;
/** While Redis is unreachable, its connection errors are logged at most this often. */
const CONNECTION_ERROR_LOG_INTERVAL_MS = 60_000;

/**
 * A Redis client that fails fast instead of queueing while disconnected, so a Redis outage
 * shows as errors (and a degraded health) rather than requests hanging.
 */
export function createRedisClient(url: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    // No auto-pipelining: the hot command, the click admission, shares one socket write per
    // event-loop turn without it (see TurnWriteBatch for why).
  });
}

/** Waits briefly for the first connection; boot goes on without it (health then says so). */
async function waitForReady(redis: Redis, logger: Logger, url: string): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      logger.warn(`Redis at ${redactUrl(url)} not ready after ${CONNECT_WAIT_MS} ms; going on`);
      resolve();
    }, CONNECT_WAIT_MS);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

@Global()
@Module({
  providers: [
    {
      provide: KvStore,
      inject: [configToken('kv')],
      useFactory: async (config: KvConfig): Promise<KvStore> => {
        const logger = new Logger('KvStore');
        if (config.url === null) {
          logger.log('REDIS_URL unset: using the in-process store (single node, not durable)');
          return new MemoryKvStore();
        }
        const redis = createRedisClient(config.url);
        const connectionErrors = new ThrottledLogger(logger, CONNECTION_ERROR_LOG_INTERVAL_MS);
        // ioredis reconnects by itself and reports every retry: log the outage, not each retry,
        // and the first error after a recovery at once.
        redis.on('error', (error: Error) =>
          connectionErrors.error('connection', 'Redis', error.message),
        );
        redis.on('ready', () => connectionErrors.reset('connection'));
        await waitForReady(redis, logger, config.url);
        return new RedisKvStore(redis);
      },
    },
  ],
  exports: [KvStore],
})
export class KvModule implements OnApplicationShutdown {
  constructor(@Inject(KvStore) private readonly store: KvStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
