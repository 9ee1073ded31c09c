import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { configToken } from '../config/config.module';
import { KvConfig, redactUrl } from '../config/env';
import { KvStore } from './kv-store';
import { MemoryKvStore } from './memory-kv-store';
import {
  BOOT_CONNECT_WAIT_MS,
  createRedisClient,
  createRedisCluster,
  describeCluster,
  isClusterNode,
  RedisClient,
} from './redis-client';
import { RedisKvStore } from './redis-kv-store';

/**
 * Waits briefly for the first connection; boot goes on without it (the store's connection
 * monitor has logged why, and health says so). True when it connected.
 */
async function waitForReady(redis: RedisClient): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), BOOT_CONNECT_WAIT_MS);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * REDIS_CLUSTER_NODES: a Redis Cluster. REDIS_URL: one Redis, which must not be a cluster
 * node (checked when it answers at boot). Neither: the in-process store.
 */
export async function openKvStore(config: KvConfig, logger: Logger): Promise<KvStore> {
  if (config.cluster !== null) {
    const cluster = createRedisCluster(config.cluster, config.commandTimeoutMs);
    // Built before the first connection attempt can fail, so its listeners see it.
    const store = new RedisKvStore(cluster, {
      log: logger,
      server: describeCluster(config.cluster),
      commandTimeoutMs: config.commandTimeoutMs,
    });
    await waitForReady(cluster);
    return store;
  }
  if (config.url !== null) {
    const redis = createRedisClient(config.url, config.commandTimeoutMs);
    const server = redactUrl(config.url);
    const store = new RedisKvStore(redis, {
      log: logger,
      server,
      commandTimeoutMs: config.commandTimeoutMs,
    });
    if ((await waitForReady(redis)) && (await isClusterNode(redis).catch(() => false))) {
      await store.close();
      throw new Error(
        `REDIS_URL (${server}) is a Redis Cluster node: set REDIS_CLUSTER_NODES to its nodes instead`,
      );
    }
    return store;
  }
  logger.log('No Redis configured: using the in-process store (single node, not durable)');
  return new MemoryKvStore();
}

@Global()
@Module({
  providers: [
    {
      provide: KvStore,
      inject: [configToken('kv')],
      useFactory: (config: KvConfig): Promise<KvStore> =>
        openKvStore(config, new Logger('KvStore')),
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
