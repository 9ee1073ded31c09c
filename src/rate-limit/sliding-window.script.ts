import type { KvScript, ScriptArg } from '../kv/kv-script';
import { hitSlidingLogs, SlidingLogDecision } from './sliding-log';

/**
 * The sliding log of sliding-log.ts as one atomic script, over sorted sets in Redis and over
 * sorted arrays in the in-process store (the twin runs hitSlidingLogs itself).
 * KEYS: the windows. ARGV: nowMs, windowMs, member (unique per request), then one limit per
 * key. Reply: 1 when admitted, else 0, then per key count, oldestMs or -1, blockingMs or -1.
 */
export const SLIDING_WINDOWS_SCRIPT: KvScript<number[]> = {
  name: 'hitSlidingWindows',
  lua: `
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
`,
  runInMemory(data, keys, args) {
    const nowMs = Number(args[0]);
    const windowMs = Number(args[1]);
    const logs = keys.map((key) => data.structureAt<number[]>(key, () => []));
    const decision = hitSlidingLogs(
      logs,
      keys.map((_, i) => Number(args[3 + i])),
      nowMs,
      windowMs,
    );
    keys.forEach((key, i) => {
      // Redis drops an empty sorted set, and expires a log a window after its last entry.
      if (logs[i].length === 0) data.deleteKey(key);
      else if (decision.allowed) data.expireInMs(key, windowMs);
    });
    return encodeSlidingWindows(decision);
  },
};

/** The script's arguments for one request; `member` tells requests of one millisecond apart. */
export function slidingWindowsArgs(
  limits: readonly number[],
  nowMs: number,
  windowMs: number,
  member: string,
): ScriptArg[] {
  return [nowMs, windowMs, member, ...limits];
}

function encodeSlidingWindows(decision: SlidingLogDecision): number[] {
  const reply = [decision.allowed ? 1 : 0];
  for (const window of decision.windows) {
    reply.push(window.count, window.oldestMs ?? -1, window.blockingMs ?? -1);
  }
  return reply;
}

export function decodeSlidingWindows(
  reply: readonly number[],
  windowCount: number,
): SlidingLogDecision {
  const orNull = (value: number): number | null => (value < 0 ? null : value);
  return {
    allowed: reply[0] === 1,
    windows: Array.from({ length: windowCount }, (_, i) => ({
      count: reply[1 + i * 3],
      oldestMs: orNull(reply[2 + i * 3]),
      blockingMs: orNull(reply[3 + i * 3]),
    })),
  };
}
