import { Cluster } from 'ioredis';
import type { RedisClient } from './redis-client';

/** Where the two lines of an outage go: a Nest `Logger` fits, and so does a test recorder. */
export interface ConnectionLog {
  log(message: string): void;
  error(message: string): void;
}

type ConnectionState = 'connecting' | 'up' | 'down';

/**
 * While Redis is down, a PING is sent this often over the connection that is still open (a
 * stall), so the first one Redis answers on waking ends the outage. They do not wait for each
 * other: a stall of S seconds leaves S / 0.1 PINGs in Redis's socket, and the reply to one
 * sent just before it woke comes back at once, not a command timeout later.
 */
const PROBE_INTERVAL_MS = 100;

/**
 * Whether Redis is reachable, from the connection's own events and from command timeouts (which
 * the store reports), and one log line per change of state: one when it is lost (with the
 * first reason known), one when it is back (with how long it was out). ioredis reconnects by
 * itself with the client's `retryStrategy` backoff and emits `error` on every failed attempt:
 * listening here is what keeps those from ever surfacing as "Unhandled error event", and they
 * are otherwise silent, part of the outage already reported. A stalled Redis closes nothing,
 * so its end is seen by the probe's PING instead.
 * A Redis Cluster client emits the same three for the cluster as a whole (down when no node
 * answers). One master lost while the others answer is no outage here: the commands of its
 * slots fail (its clicks are admitted in-process and spooled, and the spool's replay retries
 * every few seconds) until a replica takes its slots over, which ioredis follows. One master
 * stalled is: its commands time out, and the store is down until every master answers.
 */
export class RedisConnectionMonitor {
  private state: ConnectionState = 'connecting';
  private downSinceMs = 0;
  private isStopped = false;
  private probeTimer: NodeJS.Timeout | null = null;
  private readonly reachableAgainListeners: (() => void)[] = [];

  constructor(
    private readonly redis: RedisClient,
    private readonly logger: ConnectionLog,
    /** The server as it may be logged (no password). */
    private readonly server: string,
    /** The client's command timeout, for the log line of a stall. */
    private readonly commandTimeoutMs: number | null = null,
  ) {
    redis.on('ready', () => this.becomeUp());
    redis.on('error', (error: Error) =>
      this.becomeDown(error.message, 'reconnecting with backoff'),
    );
    redis.on('close', () => this.becomeDown('connection closed', 'reconnecting with backoff'));
  }

  /**
   * Reachable unless the connection is known lost or a command timed out since Redis last
   * answered (still connecting at boot counts as up).
   */
  isReachable(): boolean {
    return this.state !== 'down';
  }

  /**
   * A command got no reply within the command timeout while the connection stayed open:
   * Redis is stalled, which serves no better than lost, and is treated the same until it
   * answers a PING (the probe every PROBE_INTERVAL_MS).
   */
  commandTimedOut(): void {
    const within = this.commandTimeoutMs === null ? '' : ` within ${this.commandTimeoutMs} ms`;
    this.becomeDown(`no reply${within}`, 'serving without it until it answers a PING');
  }

  onReachableAgain(listener: () => void): void {
    this.reachableAgainListeners.push(listener);
  }

  /** The store is closing: the connection's end is no outage. */
  stop(): void {
    this.isStopped = true;
    this.stopProbing();
  }

  private becomeDown(reason: string, meanwhile: string): void {
    if (this.isStopped || this.state === 'down') return;
    this.state = 'down';
    this.downSinceMs = performance.now();
    this.logger.error(`Redis at ${this.server} unreachable (${reason}); ${meanwhile}`);
    this.probeTimer = setInterval(() => this.probe(), PROBE_INTERVAL_MS);
    this.probeTimer.unref();
  }

  /**
   * A PING over the open connection (every master's, on a cluster). A connection being
   * re-established is not probed: its 'ready' event ends the outage. This also ends one
   * begun by an 'error' that closed nothing.
   */
  private probe(): void {
    if (this.redis.status !== 'ready') return;
    const answered =
      this.redis instanceof Cluster
        ? Promise.all(this.redis.nodes('master').map((node) => node.ping()))
        : this.redis.ping();
    answered.then(
      () => this.becomeUp(),
      () => undefined,
    );
  }

  private stopProbing(): void {
    if (this.probeTimer !== null) clearInterval(this.probeTimer);
    this.probeTimer = null;
  }

  private becomeUp(): void {
    const wasDown = this.state === 'down';
    this.state = 'up';
    this.stopProbing();
    if (!wasDown || this.isStopped) return;
    const seconds = ((performance.now() - this.downSinceMs) / 1000).toFixed(1);
    this.logger.log(`Redis at ${this.server} reachable again after ${seconds} s`);
    for (const listener of this.reachableAgainListeners) listener();
  }
}
