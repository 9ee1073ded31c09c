import Redis, { Cluster } from 'ioredis';
import type { RedisClusterConfig } from '../config/env';

/** One Redis server or a Redis Cluster: the store issues the same commands to either. */
export type RedisClient = Redis | Cluster;

const CONNECT_TIMEOUT_MS = 2000;
/**
 * How long boot waits for Redis (its first connection, a cluster's first subscription)
 * before going on without it: the store's connection monitor says why, and health shows it.
 */
export const BOOT_CONNECT_WAIT_MS = 2000;
/** Between reconnection attempts: 200 ms, growing to 2 s. */
const reconnectDelayMs = (attempt: number): number => Math.min(attempt * 200, 2000);

/**
 * A Redis client that fails fast instead of queueing while disconnected, so a Redis outage
 * shows as errors (and a degraded health, and the in-process fallbacks) rather than requests
 * hanging. It reconnects by itself, backing off from 200 ms to 2 s between attempts.
 *
 * `commandTimeoutMs` (ioredis's `commandTimeout`) bounds every command, on every connection
 * made from this client (its `duplicate()`s inherit it): a Redis that keeps its connection
 * open but answers nothing (stopped, swapping, a hung disk) fails the command with "Command
 * timed out" instead of holding the request for as long as the stall lasts. The command
 * stays written: Redis runs it when it wakes, and its late reply is dropped. No command the
 * service sends blocks on the server (the click consumer polls XREADGROUP without BLOCK, and
 * a SUBSCRIBE is answered at once), so one bound fits all; a blocking command would need a
 * client of its own, without it. RedisKvStore counts a timeout as an outage.
 */
export function createRedisClient(url: string, commandTimeoutMs: number): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: commandTimeoutMs,
    retryStrategy: reconnectDelayMs,
    // No auto-pipelining: the hot command, the click admission, already leaves as one call
    // per event-loop turn (see ClickAdmissionBatches for why not pipelines).
  });
}

/**
 * The same for a Redis Cluster: commands go to the node of their keys' hash slot, and fail
 * at once while the cluster is not reachable (no offline queue at the cluster's level; a
 * node's own connection still queues the commands issued while it first connects). Lost
 * altogether, the cluster is connected again with the same backoff; a MOVED or a failover
 * is followed by ioredis, which refreshes its slot map. The command timeout is a node
 * option: ioredis arms it on each node's connection, where the command is written (or
 * queued while that node connects), and a timed-out command is not redirected or retried.
 */
export function createRedisCluster(config: RedisClusterConfig, commandTimeoutMs: number): Cluster {
  return new Cluster(config.nodes, {
    enableOfflineQueue: false,
    clusterRetryStrategy: reconnectDelayMs,
    redisOptions: {
      username: config.username ?? undefined,
      password: config.password ?? undefined,
      tls: config.tls ? {} : undefined,
      maxRetriesPerRequest: 1,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: commandTimeoutMs,
    },
  });
}

/** How logs name a cluster: its seed nodes (never a password). */
export const describeCluster = (config: RedisClusterConfig): string =>
  `Redis Cluster ${config.nodes.map(({ host, port }) => `${host}:${port}`).join(',')}`;

/**
 * Whether a server reached through REDIS_URL is a cluster node (`INFO cluster`). A plain
 * client there would see most keys answered with MOVED, so boot stops and says to set
 * REDIS_CLUSTER_NODES instead.
 */
export async function isClusterNode(redis: Redis): Promise<boolean> {
  return /^cluster_enabled:1\s*$/m.test(await redis.info('cluster'));
}
