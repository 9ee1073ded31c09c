import Redis from 'ioredis';
import { createHash } from 'node:crypto';
import type { KvScript } from '../../src/kv/kv-script';
import { RedisKvStore } from '../../src/kv/redis-kv-store';

/**
 * How the Redis store sends scripts (EVALSHA with its arguments already flat, EVAL when
 * Redis no longer knows the script). Runs when REDIS_URL is set, like the store contract.
 */
const REDIS_URL = process.env.REDIS_URL ?? '';
const RUN = `scripts-${process.pid}-${Date.now()}`;

/**
 * Echoes its keys and arguments, so the test sees exactly what reached Lua. The text is this
 * run's and the test's own: Redis has never seen it, so its first call meets NOSCRIPT.
 */
const echoScript = (test: string): KvScript<string[]> => ({
  name: `echo-${RUN}-${test}`,
  lua: `-- ${RUN} ${test}
local out = {} for i, k in ipairs(KEYS) do out[#out + 1] = 'k:' .. k end
for i, a in ipairs(ARGV) do out[#out + 1] = 'a:' .. a end return out`,
  runInMemory: (_data, keys, args) => [
    ...keys.map((key) => `k:${key}`),
    ...args.map((arg) => `a:${String(arg)}`),
  ],
});

(REDIS_URL === '' ? describe.skip : describe)('RedisKvStore scripts (REDIS_URL)', () => {
  let admin: Redis;
  let store: RedisKvStore;

  beforeAll(() => {
    admin = new Redis(REDIS_URL);
    store = new RedisKvStore(new Redis(REDIS_URL, { maxRetriesPerRequest: 1 }));
  });
  afterAll(async () => {
    await store.close();
    await admin.quit();
  });

  it('should hand Lua every key and argument, numbers as their decimal text', async () => {
    const keys = [`${RUN}:a`, `${RUN}:b`];
    expect(await store.runScript(echoScript('args'), keys, ['x', 42, 1.5, ''])).toEqual([
      `k:${RUN}:a`,
      `k:${RUN}:b`,
      'a:x',
      'a:42',
      'a:1.5',
      'a:',
    ]);
  });

  it('should run a script Redis does not know (new, or after a restart) by sending it', async () => {
    const script = echoScript('noscript');
    const sha = createHash('sha1').update(script.lua).digest('hex');
    const [knownBefore] = (await admin.script('EXISTS', sha)) as number[];
    expect(knownBefore).toBe(0);
    expect(await store.runScript(script, [`${RUN}:c`], ['first'])).toEqual([
      `k:${RUN}:c`,
      'a:first',
    ]);
    // EVAL cached it: the next calls are plain EVALSHAs.
    const [knownAfter] = (await admin.script('EXISTS', sha)) as number[];
    expect(knownAfter).toBe(1);
  });

  it('should reject with Redis’s error when a script fails', async () => {
    const failing: KvScript<never> = {
      name: `fail-${RUN}`,
      lua: `return redis.error_reply('BOOM from the script')`,
      runInMemory: () => {
        throw new Error('BOOM from the script');
      },
    };
    await expect(store.runScript(failing, [], [])).rejects.toThrow('BOOM from the script');
  });
});
