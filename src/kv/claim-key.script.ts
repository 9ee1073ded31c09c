import type { KvScript } from './kv-script';

/**
 * Claims a key: when it is free, stores ARGV[1] there for ARGV[2] seconds and replies null;
 * when it is taken, replies what is stored there. One atomic step (SET NX and GET together),
 * so of two callers exactly one claims: idempotency keys (a request and its answer), the
 * unique-visitor day secrets. KEYS: the key. Reply: the stored value, or null when claimed.
 */
export const CLAIM_KEY_SCRIPT: KvScript<string | null> = {
  name: 'claimKey',
  lua: `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
`,
  runInMemory(data, keys, args) {
    const existing = data.getString(keys[0]);
    if (existing !== null) return existing;
    data.setString(keys[0], String(args[0]), { ttlMs: Number(args[1]) * 1000 });
    return null;
  },
};
