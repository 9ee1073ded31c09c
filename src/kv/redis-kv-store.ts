import Redis, { Result } from 'ioredis';
import { WindowState } from '../rate-limit/sliding-log';
import {
  ADMIT_CLICK_LUA,
  AdmissionVerdict,
  bucketKeyOf,
  ClickAdmissionRequest,
  ClickAdmissionResult,
} from './click-admission';
import { KvStore, StreamEntry, WindowSpec } from './kv-store';
import { TurnWriteBatch } from './turn-write-batch';

/**
 * The sliding log of sliding-log.ts as one atomic script over sorted sets. KEYS are the
 * windows; ARGV = nowMs, windowMs, member, limit per key. Returns per key
 * {count, oldestMs or -1, blockingMs or -1} and, first, 1 when admitted.
 */
const SLIDING_WINDOWS_LUA = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local counts = {}
local allowed = 1
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  counts[i] = redis.call('ZCARD', key)
  if counts[i] >= tonumber(ARGV[3 + i]) then allowed = 0 end
end
local result = { allowed }
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[3 + i])
  if allowed == 1 then
    redis.call('ZADD', key, now, member)
    redis.call('PEXPIRE', key, window)
    counts[i] = counts[i] + 1
  end
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local blocking = -1
  if allowed == 0 and counts[i] >= limit then
    blocking = tonumber(redis.call('ZRANGE', key, counts[i] - limit, counts[i] - limit, 'WITHSCORES')[2])
  end
  table.insert(result, counts[i])
  table.insert(result, oldest[2] and tonumber(oldest[2]) or -1)
  table.insert(result, blocking)
end
return result
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** numberOfKeys is fixed (6) by defineCommand. */
    admitClick(...keysAndArgs: (string | number)[]): Result<[AdmissionVerdict, number], Context>;
    hitSlidingWindows(
      numberOfKeys: number,
      ...keysAndArgs: (string | number)[]
    ): Result<number[], Context>;
  }
}

export class RedisKvStore extends KvStore {
  private sequence = 0;
  private subscriber: Redis | null = null;
  /** Admissions are the redirect's one round trip: those of one event-loop turn share a write. */
  private readonly admissionWrites: TurnWriteBatch;

  constructor(private readonly redis: Redis) {
    super();
    redis.defineCommand('hitSlidingWindows', { lua: SLIDING_WINDOWS_LUA });
    redis.defineCommand('admitClick', { lua: ADMIT_CLICK_LUA, numberOfKeys: 6 });
    this.admissionWrites = new TurnWriteBatch(redis);
  }

  /** Unique per request even within one millisecond and across app nodes. */
  private nextMember(nowMs: number): string {
    this.sequence = (this.sequence + 1) % 1e9;
    return `${nowMs}:${process.pid}:${this.sequence}:${Math.random()}`;
  }

  async ping(): Promise<number> {
    const startedAt = performance.now();
    await this.redis.ping();
    return performance.now() - startedAt;
  }

  async hitSlidingWindows(
    windows: WindowSpec[],
    nowMs: number,
    windowMs: number,
  ): Promise<{ allowed: boolean; windows: WindowState[] }> {
    const member = this.nextMember(nowMs);
    const reply = await this.redis.hitSlidingWindows(
      windows.length,
      ...windows.map((window) => window.key),
      nowMs,
      windowMs,
      member,
      ...windows.map((window) => window.limit),
    );
    const orNull = (value: number): number | null => (value < 0 ? null : value);
    return {
      allowed: reply[0] === 1,
      windows: windows.map((_, i) => ({
        count: reply[1 + i * 3],
        oldestMs: orNull(reply[2 + i * 3]),
        blockingMs: orNull(reply[3 + i * 3]),
      })),
    };
  }

  async admitClick(request: ClickAdmissionRequest): Promise<ClickAdmissionResult> {
    const { keys, nowMs, windowMs } = request;
    const bucket = Math.floor(nowMs / windowMs);
    this.admissionWrites.hold();
    const [verdict, used] = await this.redis.admitClick(
      bucketKeyOf(keys.ipWindow, bucket),
      bucketKeyOf(keys.ipWindow, bucket - 1),
      bucketKeyOf(keys.creatorWindow, bucket),
      bucketKeyOf(keys.creatorWindow, bucket - 1),
      keys.quota,
      keys.stream,
      (nowMs % windowMs) / windowMs,
      2 * windowMs,
      request.ipLimit,
      request.creatorLimit,
      request.includedClicks,
      request.isHardCap ? '1' : '0',
      request.quotaSeed ?? '',
      request.quotaTtlSeconds,
      request.record,
    );
    return { verdict, used: Number(used) };
  }

  async getString(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  async setString(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(key, value, 'EX', ttlSeconds);
  }

  async deleteKeys(keys: string[]): Promise<void> {
    // One DEL per key: keys of different slots cannot share a command on a cluster.
    await Promise.all(keys.map((key) => this.redis.del(key)));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.redis.publish(channel, message);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    // A subscribed connection can do nothing else, so invalidations get their own.
    this.subscriber ??= this.redis.duplicate({ enableOfflineQueue: true });
    this.subscriber.on('message', (received: string, message: string) => {
      if (received === channel) onMessage(message);
    });
    await this.subscriber.subscribe(channel);
  }

  async ensureStreamGroup(stream: string, group: string): Promise<void> {
    try {
      await this.redis.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('BUSYGROUP')) throw error;
    }
  }

  async readStreamGroup(
    stream: string,
    group: string,
    consumer: string,
    count: number,
  ): Promise<StreamEntry[]> {
    const reply = (await this.redis.xreadgroup(
      'GROUP',
      group,
      consumer,
      'COUNT',
      count,
      'STREAMS',
      stream,
      '>',
    )) as [string, [string, string[]][]][] | null;
    return reply === null ? [] : toEntries(reply[0][1]);
  }

  async claimIdleEntries(
    stream: string,
    group: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<StreamEntry[]> {
    const reply = (await this.redis.xautoclaim(
      stream,
      group,
      consumer,
      minIdleMs,
      '0',
      'COUNT',
      count,
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
    await this.redis.xack(stream, group, ...ids);
    const lastDelivered = lastDeliveredIdOf(await this.redis.xinfo('GROUPS', stream), group);
    const [pendingCount, oldestPending] = (await this.redis.xpending(stream, group)) as [
      number,
      string | null,
      ...unknown[],
    ];
    const bound =
      pendingCount > 0 && oldestPending !== null ? oldestPending : nextStreamId(lastDelivered);
    await this.redis.xtrim(stream, 'MINID', bound);
  }

  async getCounter(key: string): Promise<number | null> {
    const value = await this.redis.get(key);
    return value === null ? null : Number(value);
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
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
