import { Logger } from '@nestjs/common';
import Redis, { Cluster } from 'ioredis';
import { createHash } from 'node:crypto';
import { DeadlineExceededError, withinDeadline } from '../common/async/within-deadline';
import type { KvScript, ScriptArg } from './kv-script';
import { KvConnectionUsage, KvStore, StreamEntry, StreamGroupInfo } from './kv-store';
import { BOOT_CONNECT_WAIT_MS, RedisClient } from './redis-client';
import { ConnectionLog, RedisConnectionMonitor } from './redis-connection-monitor';

/**
 * A command whose arguments arrive already flat. ioredis's Command flattens its argument list
 * with Array.prototype.flat, which on Node 20 costs about 0.3 µs per argument: with the click
 * admission's twenty-one arguments, the largest single cost of a click inside ioredis (about
 * 3 µs). The arguments are set after construction and stringified as the constructor would.
 *
 * A Redis Cluster sends a command to the node of its first key's hash slot, which ioredis
 * reads from the arguments when it routes (after construction, so it sees these), by its
 * table of where each command keeps its keys: EVALSHA's and EVAL's are after the key count.
 * XGROUP and XINFO put a subcommand before the key, which that table does not know, so they
 * are given their key (`routingKey`) instead of landing on any node and following a MOVED.
 */
class FlatArgsCommand extends Redis.Command {
  constructor(
    name: string,
    args: ScriptArg[],
    private readonly routingKey: string | null = null,
  ) {
    super(name, [], { replyEncoding: 'utf8' });
    this.args = args;
    this.stringifyArguments();
  }

  override getKeys(): (string | Buffer)[] {
    return this.routingKey === null ? super.getKeys() : [this.routingKey];
  }
}

/**
 * ioredis's rejection of a command not answered within its `commandTimeout`, and the store's
 * own of a command it did not send because Redis is down; common/errors/kv-unavailable.ts
 * reads both as the store being unavailable (a 503, not a 500, where nothing falls back).
 */
const TIMED_OUT_MESSAGE = 'Command timed out';
const NOT_SENT_MESSAGE = 'Redis unreachable: command not sent';

const isTimeout = (error: unknown): boolean =>
  error instanceof Error && error.message === TIMED_OUT_MESSAGE;

/**
 * Every command is refused at once, without being sent, from the moment Redis is known down
 * (a lost connection, or a command that timed out) until it is back (the connection ready
 * again, or a probe's PING answered: RedisConnectionMonitor). Why: with the timeout alone,
 * every request during a stall would still wait the whole timeout for each Redis command it
 * makes, and leave one more command in Redis's socket for it to run when it wakes (a click
 * admission run late counts in the quota as well as in the spool). This way only the
 * commands sent before the first timeout wait for it; every later request goes straight to
 * its fallback (the click spool, the in-process limits, PostgreSQL). A lost connection
 * refused commands at once already (no offline queue); a stall now takes the same path.
 */
export class RedisKvStore extends KvStore {
  private subscriber: RedisClient | null = null;
  /** Each script's SHA-1, by name (the name guards against two scripts sharing one). */
  private readonly scripts = new Map<string, { lua: string; sha: string }>();

  /** The connection's state, from its events; it reports each outage in two lines. */
  private readonly connection: RedisConnectionMonitor;

  /** `redis`: one server or a cluster. `server`: how the logs name it (never with its password). */
  constructor(
    private readonly redis: RedisClient,
    {
      log = new Logger('KvStore'),
      server = 'redis',
      commandTimeoutMs = null,
    }: { log?: ConnectionLog; server?: string; commandTimeoutMs?: number | null } = {},
  ) {
    super();
    this.connection = new RedisConnectionMonitor(redis, log, server, commandTimeoutMs);
  }

  override isReachable(): boolean {
    return this.connection.isReachable();
  }

  override onReachableAgain(listener: () => void): void {
    this.connection.onReachableAgain(listener);
  }

  async ping(): Promise<number> {
    const startedAt = performance.now();
    await this.guarded(() => this.redis.ping());
    return performance.now() - startedAt;
  }

  /** `command` sent unless Redis is down (see the class comment); a timeout makes it down. */
  private guarded<T>(command: () => Promise<T>): Promise<T> {
    if (!this.connection.isReachable()) return Promise.reject(new Error(NOT_SENT_MESSAGE));
    return command().catch(this.failed);
  }

  private readonly failed = (error: unknown): never => {
    if (isTimeout(error)) this.connection.commandTimedOut();
    throw error;
  };

  /**
   * EVALSHA, and EVAL when Redis answers NOSCRIPT (a restarted or flushed Redis), which
   * caches the script again. Not `async`, and sent as one flat argument list: the click
   * admissions (calls of up to 16 clicks, click-admission-batch.ts) are the redirect's hot
   * command. On a cluster both go to the node of the keys' slot, so each node caches the
   * scripts it is sent on its first NOSCRIPT.
   */
  runScript<Reply>(
    script: KvScript<Reply>,
    keys: readonly string[],
    args: readonly ScriptArg[],
  ): Promise<Reply> {
    if (!this.connection.isReachable()) return Promise.reject(new Error(NOT_SENT_MESSAGE));
    const argv: ScriptArg[] = [this.shaOf(script), keys.length];
    for (const key of keys) argv.push(key);
    for (const arg of args) argv.push(arg);
    // One handler, as before: noting a timeout adds no promise to the hot path.
    return this.send<Reply>('evalsha', argv).catch((error: unknown) => {
      if (!String(error).includes('NOSCRIPT')) return this.failed(error);
      argv[0] = script.lua;
      return this.send<Reply>('eval', argv).catch(this.failed);
    });
  }

  override scriptsSpanSlots(): boolean {
    return !(this.redis instanceof Cluster);
  }

  private send<Reply>(
    name: string,
    args: ScriptArg[],
    routingKey: string | null = null,
  ): Promise<Reply> {
    const command = new FlatArgsCommand(name, args, routingKey);
    void this.redis.sendCommand(command);
    return command.promise as Promise<Reply>;
  }

  private shaOf(script: KvScript<unknown>): string {
    const known = this.scripts.get(script.name);
    if (known !== undefined) {
      if (known.lua !== script.lua) throw new Error(`Two scripts are named ${script.name}`);
      return known.sha;
    }
    const sha = createHash('sha1').update(script.lua).digest('hex');
    this.scripts.set(script.name, { lua: script.lua, sha });
    return sha;
  }

  getString(key: string): Promise<string | null> {
    return this.guarded(() => this.redis.get(key));
  }

  async getBytes(keys: readonly string[]): Promise<(Buffer | null)[]> {
    if (keys.length === 0) return [];
    return this.guarded(() => this.redis.mgetBuffer(...keys));
  }

  async setString(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.guarded(() => this.redis.set(key, value, 'EX', ttlSeconds));
  }

  getHash(key: string): Promise<Record<string, string>> {
    return this.guarded(() => this.redis.hgetall(key));
  }

  async setHash(key: string, fields: Record<string, string>, ttlSeconds: number): Promise<void> {
    // MULTI: a hash never exists without its expiry.
    const replies = await this.guarded(() =>
      this.redis.multi().hset(key, fields).expire(key, ttlSeconds).exec(),
    );
    const failed = replies?.find(([error]) => error !== null)?.[0];
    if (failed) throw failed;
  }

  async deleteKeys(keys: string[]): Promise<void> {
    // One DEL per key: keys of different slots cannot share a command on a cluster.
    await this.guarded(() => Promise.all(keys.map((key) => this.redis.del(key))));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.guarded(() => this.redis.publish(channel, message));
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    // A subscribed connection can do nothing else, so invalidations get their own.
    // ioredis subscribes again by itself after a reconnect (`autoResubscribe`). Its errors are
    // the main connection's outage, reported there: listened to so none is ever unhandled.
    this.subscriber ??= this.duplicateWithOfflineQueue().on('error', () => {});
    this.subscriber.on('message', (received: string, message: string) => {
      if (received === channel) onMessage(message);
    });
    const subscribed = this.subscriber.subscribe(channel);
    // A single server's client gives up on a queued command after its retry; a cluster's
    // keeps it until the cluster is reachable, so boot is not held for it: past the wait the
    // caller hears why, and the subscription is made when the cluster answers.
    if (!(this.subscriber instanceof Cluster)) {
      await subscribed;
      return;
    }
    await withinDeadline(subscribed, BOOT_CONNECT_WAIT_MS, 'Redis Cluster').catch((error) => {
      throw error instanceof DeadlineExceededError
        ? new Error('Redis Cluster not reachable yet: subscribing once it is')
        : error;
    });
  }

  /**
   * A cluster's PUBLISH reaches the subscribers of every node, so a duplicate cluster client
   * subscribes through one node of its choice (and another if that node is lost).
   */
  private duplicateWithOfflineQueue(): RedisClient {
    return this.redis instanceof Cluster
      ? this.redis.duplicate([], { enableOfflineQueue: true })
      : this.redis.duplicate({ enableOfflineQueue: true });
  }

  async appendToStream(stream: string, payload: string): Promise<string> {
    // Same field as the click admission script's XADD, which the readers below read.
    const id = await this.guarded(() => this.redis.xadd(stream, '*', 'c', payload));
    if (id === null) throw new Error(`XADD to ${stream} added nothing`);
    return id;
  }

  async firstStreamEntryId(stream: string): Promise<string | null> {
    const [first] = await this.guarded(() => this.redis.xrange(stream, '-', '+', 'COUNT', 1));
    return first?.[0] ?? null;
  }

  streamLength(stream: string): Promise<number> {
    return this.guarded(() => this.redis.xlen(stream));
  }

  async ensureStreamGroup(stream: string, group: string): Promise<void> {
    try {
      await this.guarded(() =>
        this.send('xgroup', ['CREATE', stream, group, '0', 'MKSTREAM'], stream),
      );
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('BUSYGROUP')) throw error;
    }
  }

  readStreamGroup(
    stream: string,
    group: string,
    consumer: string,
    count: number,
  ): Promise<StreamEntry[]> {
    return this.readGroupFrom('>', stream, group, consumer, count);
  }

  readOwnPending(
    stream: string,
    group: string,
    consumer: string,
    count: number,
  ): Promise<StreamEntry[]> {
    return this.readGroupFrom('0', stream, group, consumer, count);
  }

  /**
   * XREADGROUP from `id`: `>` for entries never delivered, `0` for the consumer's own pending
   * ones (an entry trimmed while pending comes back without fields; XAUTOCLAIM clears it).
   */
  private async readGroupFrom(
    id: '>' | '0',
    stream: string,
    group: string,
    consumer: string,
    count: number,
  ): Promise<StreamEntry[]> {
    const reply = (await this.guarded(() =>
      this.redis.xreadgroup('GROUP', group, consumer, 'COUNT', count, 'STREAMS', stream, id),
    )) as [string, [string, string[] | null][]][] | null;
    return reply === null ? [] : toEntries(reply[0][1]);
  }

  async claimIdleEntries(
    stream: string,
    group: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<StreamEntry[]> {
    const reply = (await this.guarded(() =>
      this.redis.xautoclaim(stream, group, consumer, minIdleMs, '0', 'COUNT', count),
    )) as [string, [string, string[] | null][]];
    return toEntries(reply[1]);
  }

  /**
   * XACK, then one XTRIM instead of an XDEL of every id (which cost twice the XACK). The
   * bound: the group's oldest pending entry, or, when none is pending, the entry after the
   * last one delivered. Read in that order, every entry below the bound was delivered and is
   * no longer pending, so it is acknowledged and stays so (only pending entries are claimed).
   * This holds for streams that one consumer group reads, as the click streams are.
   */
  async ackAndDelete(stream: string, group: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.guarded(() => this.redis.xack(stream, group, ...ids));
    const groups = await this.guarded(() =>
      this.send<unknown>('xinfo', ['GROUPS', stream], stream),
    );
    const lastDelivered = lastDeliveredIdOf(groups, group);
    const [pendingCount, oldestPending] = (await this.guarded(() =>
      this.redis.xpending(stream, group),
    )) as [number, string | null, ...unknown[]];
    const bound =
      pendingCount > 0 && oldestPending !== null ? oldestPending : nextStreamId(lastDelivered);
    await this.guarded(() => this.redis.xtrim(stream, 'MINID', bound));
  }

  /**
   * XLEN and XINFO GROUPS, sent together. A stream that does not exist has no group (XINFO
   * answers "no such key"). `lag` is Redis 7's; an older Redis has none, and Redis 7 leaves
   * it null when it cannot tell (an XDEL ahead of the group; the click streams are trimmed
   * from the front, never XDELed).
   */
  async streamGroupInfo(stream: string, group: string): Promise<StreamGroupInfo> {
    const [length, groups] = await Promise.all([
      this.guarded(() => this.redis.xlen(stream)),
      this.guarded(() => this.send<unknown[][]>('xinfo', ['GROUPS', stream], stream)).catch(
        (error: unknown) => {
          if (String(error).includes('no such key')) return [];
          throw error;
        },
      ),
    ]);
    for (const fields of groups) {
      const at = (name: string): unknown => fields[fields.indexOf(name) + 1];
      if (at('name') !== group) continue;
      const lag = at('lag');
      return {
        length,
        group: { pending: Number(at('pending')), lag: typeof lag === 'number' ? lag : null },
      };
    }
    return { length, group: null };
  }

  /** The command connection and, once something subscribed, the subscriber's. */
  override connectionUsage(): KvConnectionUsage[] {
    const usage: KvConnectionUsage[] = [{ client: 'command', ...usageOf(this.redis) }];
    if (this.subscriber !== null) usage.push({ client: 'subscriber', ...usageOf(this.subscriber) });
    return usage;
  }

  async close(): Promise<void> {
    this.connection.stop();
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** ioredis keeps its offline queue private; its length is all that is read. */
const offlineQueueLength = (client: RedisClient): number =>
  (client as unknown as { offlineQueue?: { length: number } }).offlineQueue?.length ?? 0;

/**
 * Whether a client is ready, and its queued commands. A cluster's are summed over its node
 * connections, plus the commands the cluster object itself holds until it is ready.
 */
function usageOf(client: RedisClient): Omit<KvConnectionUsage, 'client'> {
  const isUp = client.status === 'ready';
  if (!(client instanceof Cluster)) {
    return { isUp, inFlight: client.commandQueue.length, offline: offlineQueueLength(client) };
  }
  let inFlight = 0;
  let offline = offlineQueueLength(client);
  for (const node of client.nodes('all')) {
    inFlight += node.commandQueue.length;
    offline += offlineQueueLength(node);
  }
  return { isUp, inFlight, offline };
}

/** Stream entries as XREADGROUP/XAUTOCLAIM return them; deleted entries come back as null. */
function toEntries(raw: [string, string[] | null][]): StreamEntry[] {
  return raw
    .filter((entry): entry is [string, string[]] => entry[1] !== null)
    .map(([id, fields]) => ({ id, payload: fields[fields.indexOf('c') + 1] ?? '' }));
}

/** The group's `last-delivered-id` in an XINFO GROUPS reply (field-value lists per group). */
function lastDeliveredIdOf(reply: unknown, group: string): string {
  for (const fields of reply as unknown[][]) {
    const at = (name: string): unknown => fields[fields.indexOf(name) + 1];
    if (at('name') === group) return String(at('last-delivered-id'));
  }
  throw new Error(`NOGROUP: no consumer group ${group}`);
}

/** The smallest stream id after `id` (`<ms>-<sequence>`). */
export function nextStreamId(id: string): string {
  const [ms, sequence] = id.split('-');
  return `${ms}-${BigInt(sequence ?? '0') + 1n}`;
}
