import type { RedisClient } from './redis-client';

/** Where the two lines of an outage go: a Nest `Logger` fits, and so does a test recorder. */
export interface ConnectionLog {
  log(message: string): void;
  error(message: string): void;
}

type ConnectionState = 'connecting' | 'up' | 'down';

/**
 * Whether Redis is reachable, from the connection's own events, and one log line per change of
 * state: one when it is lost (with the first reason known), one when it is back (with how long
 * it was out). ioredis reconnects by itself with the client's `retryStrategy` backoff and emits
 * `error` on every failed attempt: listening here is what keeps those from ever surfacing as
 * "Unhandled error event", and they are otherwise silent, part of the outage already reported.
 * A Redis Cluster client emits the same three for the cluster as a whole (down when no node
 * answers). One master lost while the others answer is no outage here: the commands of its
 * slots fail (its clicks are admitted in-process and spooled, and the spool's replay retries
 * every few seconds) until a replica takes its slots over, which ioredis follows.
 */
export class RedisConnectionMonitor {
  private state: ConnectionState = 'connecting';
  private downSinceMs = 0;
  private isStopped = false;
  private readonly reachableAgainListeners: (() => void)[] = [];

  constructor(
    redis: RedisClient,
    private readonly logger: ConnectionLog,
    /** The server as it may be logged (no password). */
    private readonly server: string,
  ) {
    redis.on('ready', () => this.becomeUp());
    redis.on('error', (error: Error) => this.becomeDown(error.message));
    redis.on('close', () => this.becomeDown('connection closed'));
  }

  /** Reachable unless the connection is known lost (still connecting at boot counts as up). */
  isReachable(): boolean {
    return this.state !== 'down';
  }

  onReachableAgain(listener: () => void): void {
    this.reachableAgainListeners.push(listener);
  }

  /** The store is closing: the connection's end is no outage. */
  stop(): void {
    this.isStopped = true;
  }

  private becomeDown(reason: string): void {
    if (this.isStopped || this.state === 'down') return;
    this.state = 'down';
    this.downSinceMs = performance.now();
    this.logger.error(`Redis at ${this.server} unreachable (${reason}); reconnecting with backoff`);
  }

  private becomeUp(): void {
    const wasDown = this.state === 'down';
    this.state = 'up';
    if (!wasDown || this.isStopped) return;
    const seconds = ((performance.now() - this.downSinceMs) / 1000).toFixed(1);
    this.logger.log(`Redis at ${this.server} reachable again after ${seconds} s`);
    for (const listener of this.reachableAgainListeners) listener();
  }
}
