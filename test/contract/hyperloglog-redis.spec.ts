import fc from 'fast-check';
import Redis from 'ioredis';
import {
  addToRegisters,
  countOf,
  countSerialized,
  emptyRegisters,
  HLL_REGISTERS,
  mergeSerialized,
  parseSerialized,
  serialize,
} from '../../src/analytics/hyperloglog';
import { hasRedisServer, PrivateRedis, startPrivateRedis } from '../support/private-redis';

/**
 * The TypeScript HyperLogLog against a real Redis (src/analytics/hyperloglog.ts): elements
 * PFADDed into Redis keys, their raw values read back (GET), parsed, merged and counted in
 * TypeScript must give exactly what PFCOUNT of the same keys gives, and the registers Redis
 * built must be those the in-process twin builds from the same elements. Runs on REDIS_URL
 * when set, else on a redis-server of its own (skipped only where none can run, outside CI).
 */
const REDIS_URL = process.env.REDIS_URL ?? '';
const isSkipped = REDIS_URL === '' && !hasRedisServer() && process.env.CI === undefined;
const RUN = `hll-${process.pid}-${Date.now()}`;

/**
 * PFCOUNT's integer as Redis wrote it, and the TypeScript count in the same words. Redis
 * casts the rounded estimate to a signed 64-bit integer, which overflows to its minimum at
 * 2^63 and beyond (registers near saturation, far past any real set).
 */
const asRedisWrites = (count: number): string =>
  count >= 2 ** 63 ? '-9223372036854775808' : BigInt(count).toString();

/** jest's toEqual walks typed arrays element by element: 16,384 of them is slow. */
const sameRegisters = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(b);

/**
 * Sets of elements, one per key: mostly small (sparse in Redis), some past 2,000 (Redis
 * turns them dense), overlapping (shared elements), some keys never written.
 */
const keySetsArbitrary = fc.array(
  fc.record({
    size: fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: 300 }) },
      { weight: 2, arbitrary: fc.integer({ min: 1_500, max: 4_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 60_000 }) },
    ),
    offset: fc.integer({ min: 0, max: 100_000 }),
    prefix: fc.constantFrom('v', 'visitor-', 'ü', ''),
  }),
  { minLength: 1, maxLength: 4 },
);

const elementsOf = ({ size, offset, prefix }: { size: number; offset: number; prefix: string }) =>
  Array.from({ length: size }, (_, i) => `${prefix}${offset + i}`);

(isSkipped ? describe.skip : describe)('HyperLogLog against Redis (PFADD, GET, PFCOUNT)', () => {
  let privateRedis: PrivateRedis | null = null;
  let redis: Redis;
  let run = 0;

  beforeAll(async () => {
    if (REDIS_URL === '') privateRedis = await startPrivateRedis();
    // Integer replies as their text: ioredis's own parsing rounds those past 2^53.
    redis = new Redis(privateRedis?.url ?? REDIS_URL, { stringNumbers: true });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${RUN}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await privateRedis?.remove();
  });

  const pfcount = async (...keys: string[]): Promise<string> =>
    String(await redis.pfcount(...keys));
  const pfadd = async (key: string, elements: string[]): Promise<void> => {
    for (let at = 0; at < elements.length; at += 5_000) {
      await redis.pfadd(key, ...elements.slice(at, at + 5_000));
    }
  };

  it('should count merged Redis values exactly as PFCOUNT counts their keys, and build the same registers', async () => {
    await fc.assert(
      fc.asyncProperty(keySetsArbitrary, async (sets) => {
        run++;
        const keys = sets.map((_, i) => `${RUN}:union:${run}:${i}`);
        const twin = emptyRegisters();
        for (const [i, set] of sets.entries()) {
          const elements = elementsOf(set);
          await pfadd(keys[i], elements);
          for (const element of elements) addToRegisters(twin, element);
        }
        const merged = emptyRegisters();
        for (const key of keys) {
          const value = await redis.getBuffer(key);
          if (value === null) continue;
          mergeSerialized(merged, value);
          // One key alone, and after PFCOUNT cached its count in the header.
          expect(asRedisWrites(countOf(parseSerialized(value)))).toBe(await pfcount(key));
          expect(asRedisWrites(countSerialized(value))).toBe(await pfcount(key));
          expect(asRedisWrites(countOf(parseSerialized((await redis.getBuffer(key))!)))).toBe(
            await pfcount(key),
          );
        }
        expect(asRedisWrites(countOf(merged))).toBe(await pfcount(...keys));
        expect(sameRegisters(merged, twin)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('should serialise registers into values Redis accepts and counts alike, and read them back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          filled: fc.oneof(fc.integer({ min: 0, max: HLL_REGISTERS }), fc.constant('every')),
          seed: fc.integer(),
          values: fc.constantFrom<[number, number]>([1, 2], [1, 32], [1, 33], [1, 51], [48, 51]),
        }),
        async ({ filled, seed, values: [lowest, highest] }) => {
          run++;
          // Any registers Redis could hold, up to nearly all at 51: only there does the
          // estimator's tau term weigh (it is halved 50 times).
          const registers = emptyRegisters();
          let state = seed >>> 0;
          const next = (): number => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0);
          const valueOf = (): number => lowest + (next() % (highest - lowest + 1));
          if (filled === 'every') registers.forEach((_, at) => (registers[at] = valueOf()));
          else for (let i = 0; i < filled; i++) registers[next() % HLL_REGISTERS] = valueOf();
          const key = `${RUN}:set:${run}`;
          await redis.set(key, serialize(registers));

          expect(await pfcount(key)).toBe(asRedisWrites(countOf(registers)));
          // PFADD works on it as on its own values, and what it stores parses back.
          await redis.pfadd(key, 'one more');
          const added = parseSerialized((await redis.getBuffer(key))!);
          addToRegisters(registers, 'one more');
          expect(sameRegisters(added, registers)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });
});
