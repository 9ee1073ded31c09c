import Redis from 'ioredis';
import {
  decodeFailedAuthCheck,
  FAILED_AUTH_CHECK_SCRIPT,
  REMEMBER_KEY_SCRIPT,
} from '../../src/auth/failed-auth.script';
import { KvStore } from '../../src/kv/kv-store';
import { MemoryKvStore } from '../../src/kv/memory-kv-store';
import { RedisKvStore } from '../../src/kv/redis-kv-store';

/**
 * The failed-authentication brake's scripts (src/auth/failed-auth.script.ts) give the same
 * answers in Lua on Redis and in their TypeScript twins in process. The Redis half runs when
 * REDIS_URL is set, as the store contract does.
 */
const REDIS_URL = process.env.REDIS_URL ?? '';
const RUN = `failed-auth-${process.pid}-${Date.now()}`;
const T0 = 1_800_000_000_000;
const TTL_MS = 86_400_000;

const STORES: { name: string; open: () => KvStore }[] = [
  { name: 'MemoryKvStore', open: () => new MemoryKvStore(() => T0) },
  ...(REDIS_URL === ''
    ? []
    : [
        {
          name: 'RedisKvStore',
          open: () => new RedisKvStore(new Redis(REDIS_URL, { maxRetriesPerRequest: 1 })),
        },
      ]),
];

describe.each(STORES)('Failed-authentication scripts: $name', ({ name, open }) => {
  let store: KvStore;
  let test = 0;
  let untilKey: string;
  let knownKey: string;

  beforeAll(() => {
    store = open();
  });
  beforeEach(() => {
    test += 1;
    untilKey = `authfail:{${RUN}-${test}}:until`;
    knownKey = `authfail:{${RUN}-${test}}:known`;
  });
  afterAll(async () => {
    if (REDIS_URL !== '') {
      const cleaner = new Redis(REDIS_URL);
      const keys = await cleaner.keys(`*${RUN}*`);
      if (keys.length > 0) await cleaner.del(...keys);
      await cleaner.quit();
    }
    await store.close();
  });

  const check = async (hash: string) =>
    decodeFailedAuthCheck(
      await store.runScript(FAILED_AUTH_CHECK_SCRIPT, [untilKey, knownKey], [hash]),
    );
  const remember = (nowMs: number, hash: string, bound = 1_000): Promise<number> =>
    store.runScript(REMEMBER_KEY_SCRIPT, [knownKey], [nowMs, hash, TTL_MS, bound]);

  it('should read nothing for a client with no keys', async () => {
    await expect(check('a'.repeat(64))).resolves.toEqual({
      blockedUntilMs: null,
      keyLastSeenMs: null,
    });
  });

  it('should read the block marker and the key’s last-seen time together', async () => {
    await store.setString(untilKey, String(T0 + 60_000), 60);
    expect(await remember(T0, 'h1')).toBe(1);

    await expect(check('h1')).resolves.toEqual({ blockedUntilMs: T0 + 60_000, keyLastSeenMs: T0 });
    await expect(check('h2')).resolves.toEqual({
      blockedUntilMs: T0 + 60_000,
      keyLastSeenMs: null,
    });
    await expect(check('')).resolves.toEqual({ blockedUntilMs: T0 + 60_000, keyLastSeenMs: null });
  });

  it('should read a block marker that is no number as none', async () => {
    await store.setString(untilKey, 'garbage', 60);

    await expect(check('h1')).resolves.toEqual({ blockedUntilMs: null, keyLastSeenMs: null });
  });

  it('should move a key’s time forward when it is remembered again', async () => {
    await remember(T0, 'h1');
    expect(await remember(T0 + 5_000, 'h1')).toBe(1);

    await expect(check('h1')).resolves.toMatchObject({ keyLastSeenMs: T0 + 5_000 });
  });

  it('should drop the least recently seen keys past the bound', async () => {
    await remember(T0 + 2, 'h1');
    await remember(T0 + 1, 'h2');
    expect(await remember(T0 + 3, 'h3', 2)).toBe(2);

    await expect(check('h2')).resolves.toMatchObject({ keyLastSeenMs: null });
    await expect(check('h1')).resolves.toMatchObject({ keyLastSeenMs: T0 + 2 });
    await expect(check('h3')).resolves.toMatchObject({ keyLastSeenMs: T0 + 3 });
  });

  it('should break a tie of times by the hash, as a sorted set ranks its members', async () => {
    await remember(T0, 'hb');
    expect(await remember(T0, 'ha', 1)).toBe(1);

    await expect(check('ha')).resolves.toMatchObject({ keyLastSeenMs: null });
    await expect(check('hb')).resolves.toMatchObject({ keyLastSeenMs: T0 });
  });

  it('should drop the keys last seen a TTL ago or earlier when it remembers one', async () => {
    await remember(T0, 'h1');
    await remember(T0 + 1, 'h2');

    expect(await remember(T0 + TTL_MS, 'h3')).toBe(2);
    await expect(check('h1')).resolves.toMatchObject({ keyLastSeenMs: null });
    await expect(check('h2')).resolves.toMatchObject({ keyLastSeenMs: T0 + 1 });
  });

  if (name === 'RedisKvStore') {
    it('should expire the set a TTL after its last write', async () => {
      await remember(T0, 'h1');
      const admin = new Redis(REDIS_URL);
      try {
        const ttl = await admin.pttl(knownKey);
        expect(ttl).toBeGreaterThan(TTL_MS - 5_000);
        expect(ttl).toBeLessThanOrEqual(TTL_MS);
      } finally {
        await admin.quit();
      }
    });
  }
});
