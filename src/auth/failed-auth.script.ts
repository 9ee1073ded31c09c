import type { KvScript } from '../kv/kv-script';

/** What the check before a key lookup reads of one client, in one round trip. */
export interface FailedAuthCheckReply {
  /** When the client's block ends (ms), or null when it has no block marker. */
  blockedUntilMs: number | null;
  /** When the presented key last authenticated from the client (ms), or null: never, or no key. */
  keyLastSeenMs: number | null;
}

/** The in-process twin of a known-keys sorted set: key hash -> last seen (ms). */
type KnownKeys = Map<string, number>;

const orNull = (value: number): number | null => (value < 0 ? null : value);

/** Lua's `tonumber(x) or -1` over a GET reply, in TypeScript. */
function numberOrMinusOne(text: string | null): number {
  if (text === null || text.trim() === '') return -1;
  const value = Number(text);
  return Number.isFinite(value) ? Math.trunc(value) : -1;
}

/**
 * The client's block marker and the presented key's last-seen time, read together.
 * KEYS: the block marker (a string), the known keys (a sorted set: key hash scored by when
 * it last authenticated from the client). ARGV: the key's hash, or '' when there is none.
 * Reply: blocked-until ms or -1, last-seen ms or -1.
 */
export const FAILED_AUTH_CHECK_SCRIPT: KvScript<number[]> = {
  name: 'failedAuthCheck',
  lua: `
local untilMs = tonumber(redis.call('GET', KEYS[1]) or '') or -1
local seenMs = -1
if ARGV[1] ~= '' then
  seenMs = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or '') or -1
end
return { untilMs, seenMs }
`,
  runInMemory(data, keys, args) {
    const untilMs = numberOrMinusOne(data.getString(keys[0]));
    const hash = String(args[0]);
    const known = data.structureAt<KnownKeys>(keys[1], () => new Map());
    // Reading must not leave a key behind where Redis would have none.
    if (known.size === 0) data.deleteKey(keys[1]);
    return [untilMs, hash === '' ? -1 : (known.get(hash) ?? -1)];
  },
};

export function decodeFailedAuthCheck(reply: readonly number[]): FailedAuthCheckReply {
  return { blockedUntilMs: orNull(reply[0]), keyLastSeenMs: orNull(reply[1]) };
}

/**
 * Records that a key authenticated from the client now: drops the keys last seen a TTL ago or
 * earlier, sets this one's time, drops the least recently seen beyond the bound, and expires
 * the set a TTL after this write (every member is older by then).
 * KEYS: the known keys. ARGV: nowMs, key hash, ttlMs, bound. Reply: keys remembered.
 */
export const REMEMBER_KEY_SCRIPT: KvScript<number> = {
  name: 'rememberAuthenticatedKey',
  lua: `
local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
redis.call('ZADD', KEYS[1], now, ARGV[2])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if excess > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1) end
redis.call('PEXPIRE', KEYS[1], ttl)
return redis.call('ZCARD', KEYS[1])
`,
  runInMemory(data, keys, args) {
    const nowMs = Number(args[0]);
    const ttlMs = Number(args[2]);
    const bound = Number(args[3]);
    const known = data.structureAt<KnownKeys>(keys[0], () => new Map());
    for (const [hash, seenMs] of known) {
      if (seenMs <= nowMs - ttlMs) known.delete(hash);
    }
    known.set(String(args[1]), nowMs);
    if (known.size > bound) {
      // A sorted set's rank order: by score, then by member.
      const byRank = [...known].sort(([a, aMs], [b, bMs]) => aMs - bMs || (a < b ? -1 : 1));
      for (const [hash] of byRank.slice(0, known.size - bound)) known.delete(hash);
    }
    data.expireInMs(keys[0], ttlMs);
    return known.size;
  },
};
