import type { KvScript } from '../kv/kv-script';

/**
 * Claims an idempotency key: when the key is free, stores the claim (ARGV[1]) for ARGV[2]
 * seconds and replies null; when it is taken, replies what is stored there (the running
 * claim, or the finished answer). One atomic step, so two requests with one key cannot both
 * run. KEYS: the key. Reply: the stored value, or null when this call claimed it.
 */
export const IDEMPOTENCY_CLAIM_SCRIPT: KvScript<string | null> = {
  name: 'claimIdempotencyKey',
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
