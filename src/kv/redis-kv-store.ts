import Redis, { Result } from 'ioredis';
import { WindowState } from '../rate-limit/sliding-log';
import { KvStore, WindowSpec } from './kv-store';

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
    hitSlidingWindows(
      numberOfKeys: number,
      ...keysAndArgs: (string | number)[]
    ): Result<number[], Context>;
  }
}

export class RedisKvStore extends KvStore {
  private sequence = 0;

  constructor(private readonly redis: Redis) {
    super();
    redis.defineCommand('hitSlidingWindows', { lua: SLIDING_WINDOWS_LUA });
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
    // Members must be unique per request even within one millisecond and across app nodes.
    const member = `${nowMs}:${process.pid}:${(this.sequence = (this.sequence + 1) % 1e9)}:${Math.random()}`;
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

  async getCounter(key: string): Promise<number | null> {
    const value = await this.redis.get(key);
    return value === null ? null : Number(value);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
