import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { configToken } from '../config/config.module';
import { KvConfig, redactUrl } from '../config/env';
import { KvStore } from './kv-store';
import { MemoryKvStore } from './memory-kv-store';
import { RedisKvStore } from './redis-kv-store';

const CONNECT_WAIT_MS = 2000;

/**
 * A Redis client that fails fast instead of queueing while disconnected, so a Redis outage
 * shows as errors (and a degraded health, and the in-process fallbacks) rather than requests
 * hanging. It reconnects by itself, backing off from 200 ms to 2 s between attempts.
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

/**
 * Waits briefly for the first connection; boot goes on without it (the store's connection
 * monitor has logged why, and health says so).
 */
async function waitForReady(redis: Redis): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CONNECT_WAIT_MS);
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
        // Built before the first connection attempt can fail, so its listeners see it.
        const store = new RedisKvStore(redis, { log: logger, server: redactUrl(config.url) });
        await waitForReady(redis);
        return store;
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
