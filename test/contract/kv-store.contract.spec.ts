import Redis from 'ioredis';
import type { ClickAdmissionRequest } from '../../src/clicks/click-admission';
import {
  batchAnswersOf,
  CLICK_ADMISSION_SCRIPT,
  CLICK_BATCH_ADMISSION_SCRIPT,
  clickAdmissionArgs,
  clickAdmissionKeys,
  clickBatchKeysAndArgs,
} from '../../src/clicks/click-admission.script';
import {
  RECONCILE_QUOTA_SCRIPT,
  reconciledMarkerKey,
  REPLAY_SPOOLED_CLICK_SCRIPT,
} from '../../src/clicks/click-spool-replay.script';
import { edgeKeysOf, linkCapKeyOf } from '../../src/clicks/edge-keys';
import { hitSlidingWindows } from '../../src/rate-limit/sliding-windows';
import { CLAIM_KEY_SCRIPT } from '../../src/kv/claim-key.script';
import { countOf, emptyRegisters, mergeSerialized } from '../../src/analytics/hyperloglog';
import {
  DELETE_MOVED_SKETCHES_SCRIPT,
  FORGET_LATE_SKETCHES_SCRIPT,
  LATE_SKETCHES_SCRIPT,
  sha1HexOf,
  uniqueVisitorKeys,
} from '../../src/analytics/unique-visitors';
import { KvStore } from '../../src/kv/kv-store';
import { MemoryKvStore } from '../../src/kv/memory-kv-store';
import { RedisKvStore } from '../../src/kv/redis-kv-store';

/**
 * The contract both stores keep: the same calls give the same answers on Redis and in
 * process, scripts included (a Lua script and its TypeScript twin). The Redis half runs when
 * REDIS_URL is set (CI, `npm test` with the services up) and is left out without it.
 */
const REDIS_URL = process.env.REDIS_URL ?? '';
/** Every key of this run contains it, so runs sharing a Redis database never meet. */
const RUN = `contract-${process.pid}-${Date.now()}`;
const WINDOW_MS = 60_000;
/** A bucket boundary, so the windows' buckets are easy to reason about. */
const T0 = 1_800_000_000_000 - (1_800_000_000_000 % WINDOW_MS);

interface StoreUnderTest {
  name: string;
  open: () => KvStore;
}

const STORES: StoreUnderTest[] = [
  { name: 'MemoryKvStore', open: () => new MemoryKvStore() },
  ...(REDIS_URL === ''
    ? []
    : [
        {
          name: 'RedisKvStore',
          open: () => new RedisKvStore(new Redis(REDIS_URL, { maxRetriesPerRequest: 1 })),
        },
      ]),
];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(read: () => T, isDone: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const value = read();
    if (isDone(value)) return value;
    await sleep(20);
  }
  return read();
}

/** Pseudo-random but the same on every run and store (a linear congruential generator). */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe.each(STORES)('KvStore contract: $name', ({ open }) => {
  let store: KvStore;
  /** Distinct visitors of the union of sketches (one hash slot), as the service counts them. */
  const countVisitors = async (keys: string[]): Promise<number> => {
    const registers = emptyRegisters();
    for (const value of await store.getBytes(keys)) {
      if (value !== null) mergeSerialized(registers, value);
    }
    return countOf(registers);
  };
  beforeAll(() => {
    store = open();
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

  describe('strings', () => {
    it('should read back a value until its TTL has passed, then null', async () => {
      const key = `${RUN}:string`;
      expect(await store.getString(key)).toBeNull();
      await store.setString(key, 'v1', 1);
      expect(await store.getString(key)).toBe('v1');
      await sleep(1_100);
      expect(await store.getString(key)).toBeNull();
    });

    it('should overwrite a value and forget deleted keys', async () => {
      const key = `${RUN}:string-deleted`;
      await store.setString(key, 'v1', 60);
      await store.setString(key, 'v2', 60);
      expect(await store.getString(key)).toBe('v2');
      await store.deleteKeys([key, `${RUN}:never-set`]);
      expect(await store.getString(key)).toBeNull();
    });
  });

  describe('hashes', () => {
    it('should merge fields into a hash and read it whole, empty when missing', async () => {
      const key = `${RUN}:hash`;
      expect(await store.getHash(key)).toEqual({});
      await store.setHash(key, { a: '1', b: '2' }, 60);
      await store.setHash(key, { b: '3' }, 60);
      expect(await store.getHash(key)).toEqual({ a: '1', b: '3' });
      await store.deleteKeys([key]);
      expect(await store.getHash(key)).toEqual({});
    });
  });

  describe('scripts', () => {
    it('should admit in all sliding windows or in none, as the sliding log does', async () => {
      const windows = [
        { key: `rl:{${RUN}}:general`, limit: 3 },
        { key: `rl:{${RUN}}:bulk`, limit: 2 },
      ];
      expect((await hitSlidingWindows(store, windows, T0, WINDOW_MS)).allowed).toBe(true);
      expect((await hitSlidingWindows(store, windows, T0 + 1, WINDOW_MS)).allowed).toBe(true);
      expect(await hitSlidingWindows(store, windows, T0 + 2, WINDOW_MS)).toEqual({
        allowed: false,
        windows: [
          { count: 2, oldestMs: T0, blockingMs: null },
          { count: 2, oldestMs: T0, blockingMs: T0 },
        ],
      });
      expect(await hitSlidingWindows(store, [windows[0]], T0 + 3, WINDOW_MS)).toEqual({
        allowed: true,
        windows: [{ count: 3, oldestMs: T0, blockingMs: null }],
      });
      // An entry exactly one window old has left it.
      expect(await hitSlidingWindows(store, windows, T0 + WINDOW_MS, WINDOW_MS)).toEqual({
        allowed: true,
        windows: [
          { count: 3, oldestMs: T0 + 1, blockingMs: null },
          { count: 2, oldestMs: T0 + 1, blockingMs: null },
        ],
      });
    });

    it('should give the same sliding-window answers on both stores for arbitrary traffic', async () => {
      const random = seededRandom(42);
      const key = `rl:{${RUN}}:traffic`;
      const answers: string[] = [];
      let nowMs = T0;
      for (let i = 0; i < 200; i++) {
        nowMs += Math.floor(random() * 4_000);
        const limit = 1 + Math.floor(random() * 6);
        const decision = await hitSlidingWindows(store, [{ key, limit }], nowMs, WINDOW_MS);
        answers.push(JSON.stringify(decision));
      }
      // Computed by the same traffic on MemoryKvStore: equal on Redis means equal answers.
      expect(answers).toEqual(await trafficOnAFreshMemoryStore());
    });

    it('should admit clicks against the windows and the quota, recording each counted one', async () => {
      const creatorId = `${RUN}-creator`;
      const keys = { ...edgeKeysOf(creatorId, 'live', '203.0.113.1', '2027-01') };
      // A stream of this run only, in the same hash slot as the other keys.
      keys.stream = `${keys.stream}:${RUN}`;
      const base: ClickAdmissionRequest = {
        keys,
        nowMs: T0,
        windowMs: WINDOW_MS,
        ipLimit: 3,
        creatorLimit: 5,
        includedClicks: 100,
        isHardCap: false,
        quotaSeed: null,
        quotaTtlSeconds: 60,
        record: 'r',
        uniqueVisitor: {
          hash: null,
          ...Object.fromEntries(
            Object.entries(uniqueVisitorKeys(creatorId, 'live', `${RUN}-link`, '2027-01-01')).map(
              ([name, key]) => [`${name}Key`, key],
            ),
          ),
          ttlSeconds: 60,
        } as ClickAdmissionRequest['uniqueVisitor'],
      };
      const fromIp = (ip: string) => edgeKeysOf(creatorId, 'live', ip, '2027-01').ipWindow;
      const admit = (changes: Partial<ClickAdmissionRequest>, ip = '203.0.113.1') => {
        const request = { ...base, ...changes, keys: { ...keys, ipWindow: fromIp(ip) } };
        return store.runScript(
          CLICK_ADMISSION_SCRIPT,
          clickAdmissionKeys(request),
          clickAdmissionArgs(request),
        );
      };

      expect(await admit({})).toEqual(['quota_missing', 0]);
      expect(await admit({ quotaSeed: 2, record: 'r1' })).toEqual(['counted', 3]);
      // Once the counter exists, a seed changes nothing.
      expect(await admit({ quotaSeed: 100, record: 'r2' })).toEqual(['counted', 4]);
      expect(await admit({ record: 'r3' })).toEqual(['counted', 5]);
      expect(await admit({})).toEqual(['ip_limited', 5]);
      expect(await admit({ record: 'r4' }, '203.0.113.2')).toEqual(['counted', 6]);
      expect(await admit({ record: 'r5' }, '203.0.113.2')).toEqual(['counted', 7]);
      expect(await admit({}, '203.0.113.3')).toEqual(['creator_limited', 7]);
      // Half-way through the next bucket, half of the previous one still counts: 3 x 0.5 < 3.
      expect(await admit({ nowMs: T0 + 1.5 * WINDOW_MS, record: 'r6' })).toEqual(['counted', 8]);
      // A hard-capped creator stops at its included clicks; a paid one counts on.
      expect(
        await admit(
          { nowMs: T0 + 1.5 * WINDOW_MS, isHardCap: true, includedClicks: 8 },
          '203.0.113.4',
        ),
      ).toEqual(['quota_exhausted', 8]);
      expect(
        await admit(
          { nowMs: T0 + 1.5 * WINDOW_MS, includedClicks: 8, record: 'r7' },
          '203.0.113.4',
        ),
      ).toEqual(['counted', 9]);

      expect(await store.streamLength(keys.stream)).toBe(7);
      await store.ensureStreamGroup(keys.stream, 'contract');
      const recorded = await store.readStreamGroup(keys.stream, 'contract', 'reader', 10);
      expect(recorded.map((entry) => entry.payload)).toEqual([
        'r1',
        'r2',
        'r3',
        'r4',
        'r5',
        'r6',
        'r7',
      ]);
      expect(await store.getString(keys.quota)).toBe('9');
    });

    it('should stop a capped link at its maxClicks, seeding its counter once', async () => {
      const creatorId = `${RUN}-cap-creator`;
      const keys = { ...edgeKeysOf(creatorId, 'live', '203.0.113.20', '2027-01') };
      keys.stream = `${keys.stream}:${RUN}`;
      const capKey = linkCapKeyOf(creatorId, `${RUN}-cap-link`);
      const sets = uniqueVisitorKeys(creatorId, 'live', `${RUN}-cap-link`, '2027-01-01');
      const admit = (ip: string, maxClicks: number, seed: number | null, record = 'r') => {
        const request: ClickAdmissionRequest = {
          keys: { ...keys, ipWindow: edgeKeysOf(creatorId, 'live', ip, '2027-01').ipWindow },
          nowMs: T0,
          windowMs: WINDOW_MS,
          ipLimit: 1,
          creatorLimit: 100,
          includedClicks: 100,
          isHardCap: false,
          quotaSeed: 0,
          quotaTtlSeconds: 60,
          record,
          uniqueVisitor: {
            hash: null,
            linkKey: sets.link,
            creatorKey: sets.creator,
            ttlSeconds: 60,
          },
          linkCap: { key: capKey, maxClicks, seed },
        };
        return store.runScript(
          CLICK_ADMISSION_SCRIPT,
          clickAdmissionKeys(request),
          clickAdmissionArgs(request),
        );
      };

      expect(await admit('203.0.113.21', 3, null)).toEqual(['cap_missing', 0]);
      expect(await admit('203.0.113.21', 3, 1, 'c1')).toEqual(['counted', 1]);
      // Once the counter exists, a seed changes nothing.
      expect(await admit('203.0.113.22', 3, 0, 'c2')).toEqual(['counted', 2]);
      expect(await admit('203.0.113.23', 3, null)).toEqual(['capped', 2]);
      // Capped before the windows: this address is over its window, and still told `capped`.
      expect(await admit('203.0.113.21', 3, null)).toEqual(['capped', 2]);
      expect(await store.getString(capKey)).toBe('3');
      // A higher cap reopens the link; a lower one caps it at once.
      expect(await admit('203.0.113.24', 4, null, 'c3')).toEqual(['counted', 3]);
      expect(await admit('203.0.113.25', 2, null)).toEqual(['capped', 3]);
      expect(await store.getString(capKey)).toBe('4');
      expect(await store.streamLength(keys.stream)).toBe(3);
    });

    it('should add counted visitors to the day’s unique-visitor sets, and only counted ones', async () => {
      const creatorId = `${RUN}-uv-creator`;
      const sets = uniqueVisitorKeys(creatorId, 'live', `${RUN}-uv-link`, '2027-01-01');
      const otherLink = uniqueVisitorKeys(creatorId, 'live', `${RUN}-uv-other`, '2027-01-01');
      const keys = { ...edgeKeysOf(creatorId, 'live', '203.0.113.9', '2027-01') };
      keys.stream = `${keys.stream}:${RUN}`;
      const admit = (hash: string | null, ip: string, linkSets = sets) => {
        const request: ClickAdmissionRequest = {
          keys: { ...keys, ipWindow: edgeKeysOf(creatorId, 'live', ip, '2027-01').ipWindow },
          nowMs: T0,
          windowMs: WINDOW_MS,
          ipLimit: 2,
          creatorLimit: 100,
          includedClicks: 100,
          isHardCap: false,
          quotaSeed: 0,
          quotaTtlSeconds: 60,
          record: 'r',
          uniqueVisitor: {
            hash,
            linkKey: linkSets.link,
            creatorKey: linkSets.creator,
            ttlSeconds: 60,
          },
        };
        return store.runScript(
          CLICK_ADMISSION_SCRIPT,
          clickAdmissionKeys(request),
          clickAdmissionArgs(request),
        );
      };
      const count = countVisitors;

      expect(await admit('visitor-a', '203.0.113.10')).toEqual(['counted', 1]);
      expect(await admit('visitor-a', '203.0.113.10')).toEqual(['counted', 2]);
      expect(await admit('visitor-b', '203.0.113.10')).toEqual(['ip_limited', 2]);
      expect(await admit(null, '203.0.113.11')).toEqual(['counted', 3]);
      expect(await admit('visitor-c', '203.0.113.12', otherLink)).toEqual(['counted', 4]);

      expect(await count([sets.link])).toBe(1);
      expect(await count([otherLink.link])).toBe(1);
      expect(await count([sets.creator])).toBe(2);
      expect(await count([sets.link, otherLink.link])).toBe(2);
      expect(await count([`${sets.link}:never-written`])).toBe(0);
    });

    it('should admit a batch of clicks exactly as the same clicks one call each', async () => {
      const random = seededRandom(7);
      // Three creators, four addresses, small limits and quotas: every verdict occurs.
      const clicks = Array.from({ length: 120 }, (_, index) => ({
        creator: Math.floor(random() * 3),
        ip: `203.0.113.${20 + Math.floor(random() * 4)}`,
        nowMs: T0 + index * 700,
        isHardCap: random() < 0.5,
        seeded: random() < 0.8,
        visitor: random() < 0.7 ? `visitor-${Math.floor(random() * 10)}` : null,
      }));
      const requestsIn = (variant: string): ClickAdmissionRequest[] =>
        clicks.map((click, index) => {
          const creatorId = `${RUN}-${variant}-creator-${click.creator}`;
          const keys = { ...edgeKeysOf(creatorId, 'live', click.ip, '2027-01') };
          keys.stream = `${keys.stream}:${RUN}:${variant}`;
          const sets = uniqueVisitorKeys(creatorId, 'live', `${RUN}-${variant}-link`, '2027-01-01');
          return {
            keys,
            nowMs: click.nowMs,
            windowMs: WINDOW_MS,
            ipLimit: 6,
            creatorLimit: 15,
            includedClicks: 12,
            isHardCap: click.isHardCap,
            quotaSeed: click.seeded ? 1 : null,
            quotaTtlSeconds: 60,
            record: `r${index}`,
            uniqueVisitor: {
              hash: click.visitor,
              linkKey: sets.link,
              creatorKey: sets.creator,
              ttlSeconds: 60,
            },
          };
        });

      const oneByOne: unknown[] = [];
      for (const request of requestsIn('single')) {
        oneByOne.push(
          await store.runScript(
            CLICK_ADMISSION_SCRIPT,
            clickAdmissionKeys(request),
            clickAdmissionArgs(request),
          ),
        );
      }
      const batched: unknown[] = [];
      const pending = requestsIn('batch');
      while (pending.length > 0) {
        const batch = pending.splice(0, 1 + Math.floor(random() * 20));
        const { keys, args } = clickBatchKeysAndArgs(batch);
        const reply = await store.runScript(CLICK_BATCH_ADMISSION_SCRIPT, keys, args);
        batched.push(...batchAnswersOf(reply));
      }

      expect(batched).toEqual(oneByOne);
      // Not a run of one verdict: the comparison covered every rule.
      expect(new Set(oneByOne.map((answer) => (answer as [string])[0]))).toEqual(
        new Set(['counted', 'quota_missing', 'ip_limited', 'creator_limited', 'quota_exhausted']),
      );
      const streamOf = async (variant: string, creator: number) => {
        const stream = `${edgeKeysOf(`${RUN}-${variant}-creator-${creator}`, 'live', '', '').stream}:${RUN}:${variant}`;
        await store.ensureStreamGroup(stream, 'contract');
        const entries = await store.readStreamGroup(stream, 'contract', 'reader', 200);
        return entries.map((entry) => entry.payload);
      };
      for (const creator of [0, 1, 2]) {
        expect(await streamOf('batch', creator)).toEqual(await streamOf('single', creator));
      }
    });
  });

  describe('click spool replay', () => {
    it('should append a spooled click to its stream and its visitor to both day sets, harmlessly twice', async () => {
      const stream = `clicks:{${RUN}}:spool`;
      const sets = uniqueVisitorKeys(`${RUN}-sp-creator`, 'live', `${RUN}-sp-link`, '2027-01-01');
      const late = `uv:{${RUN}}:late`;
      const replay = (record: string, hash: string, lateMember = '') =>
        store.runScript(
          REPLAY_SPOOLED_CLICK_SCRIPT,
          [stream, sets.link, sets.creator, late],
          [record, hash, 60, lateMember],
        );

      expect(typeof (await replay('r1', 'visitor-a'))).toBe('string');
      await replay('r1', 'visitor-a');
      await replay('r2', '', 'no visitor: not late');
      expect(await store.runScript(LATE_SKETCHES_SCRIPT, [late], [])).toEqual([]);
      await replay('r3', 'visitor-b', 'late link-day');
      await replay('r3', 'visitor-b', 'late link-day');

      expect(await store.streamLength(stream)).toBe(5);
      expect(await countVisitors([sets.link])).toBe(2);
      expect(await countVisitors([sets.creator])).toBe(2);
      expect(await store.runScript(LATE_SKETCHES_SCRIPT, [late], [])).toEqual(['late link-day']);
      expect(
        await store.runScript(FORGET_LATE_SKETCHES_SCRIPT, [late], ['late link-day', 'other']),
      ).toBe(1);
      expect(await store.runScript(LATE_SKETCHES_SCRIPT, [late], [])).toEqual([]);
    });

    it('should raise a kept quota counter by a segment’s clicks once, and create a lost one from its seed', async () => {
      const kept = `quota:{${RUN}}:kept:2027-01`;
      const lost = `quota:{${RUN}}:lost:2027-01`;
      const unknown = `quota:{${RUN}}:unknown:2027-01`;
      await store.setString(kept, '10', 60);
      const reconcile = (counter: string, segment: string, clicks: number, seed: number | '') =>
        store.runScript(
          RECONCILE_QUOTA_SCRIPT,
          [counter, reconciledMarkerKey(counter, segment)],
          [clicks, 60, seed, 60],
        );

      expect(await reconcile(kept, 'segment-1', 5, '')).toBe(15);
      expect(await reconcile(kept, 'segment-1', 5, '')).toBe(-1);
      // A seed is for a missing counter only.
      expect(await reconcile(kept, 'segment-2', 2, 100)).toBe(17);
      expect(await store.getString(kept)).toBe('17');
      expect(await reconcile(lost, 'segment-1', 5, 7)).toBe(12);
      expect(await reconcile(lost, 'segment-1', 5, 7)).toBe(-1);
      expect(await reconcile(lost, 'segment-2', 1, 7)).toBe(13);
      expect(await store.getString(lost)).toBe('13');
      expect(await reconcile(unknown, 'segment-1', 5, '')).toBe(0);
      expect(await store.getString(unknown)).toBeNull();
    });
  });

  describe('unique-visitor sketches', () => {
    it('should read sketches as bytes and delete only those still holding what was read', async () => {
      const creatorId = `${RUN}-mv-creator`;
      const first = uniqueVisitorKeys(creatorId, 'live', `${RUN}-mv-a`, '2027-01-01');
      const second = uniqueVisitorKeys(creatorId, 'live', `${RUN}-mv-b`, '2027-01-01');
      const stream = `clicks:{${RUN}}:mv`;
      const late = `uv:{${RUN}}:mv-late`;
      const add = (keys: { link: string; creator: string }, visitor: string) =>
        store.runScript(
          REPLAY_SPOOLED_CLICK_SCRIPT,
          [stream, keys.link, keys.creator, late],
          [visitor, visitor, 60, ''],
        );
      await add(first, 'visitor-a');
      await add(second, 'visitor-b');
      const keys = [first.link, second.link, first.creator, `${first.link}:never-written`];

      const read = await store.getBytes(keys);
      expect(read.map((value) => value?.subarray(0, 4).toString() ?? null)).toEqual([
        'HYLL',
        'HYLL',
        'HYLL',
        null,
      ]);
      // A visitor added after the read (to the second link and the creator): those are kept.
      await add(second, 'visitor-c');
      const shas = read.map((value) => (value === null ? '' : sha1HexOf(value)));
      expect(await store.runScript(DELETE_MOVED_SKETCHES_SCRIPT, keys, shas)).toBe(1);

      expect((await store.getBytes(keys)).map((value) => value !== null)).toEqual([
        false,
        true,
        true,
        false,
      ]);
      expect(await countVisitors([second.link])).toBe(2);
    });
  });

  describe('key claims', () => {
    it('should let one call claim a key and show the others what it holds, until it is deleted', async () => {
      const key = `${RUN}:idem`;
      const claim = (value: string) => store.runScript(CLAIM_KEY_SCRIPT, [key], [value, 60]);

      expect(await claim('running-1')).toBeNull();
      expect(await claim('running-2')).toBe('running-1');
      await store.setString(key, 'done', 60);
      expect(await claim('running-3')).toBe('done');
      await store.deleteKeys([key]);
      expect(await claim('running-4')).toBeNull();
    });
  });

  describe('streams', () => {
    it('should deliver entries to a group once, let an idle consumer’s entries be claimed, and trim acknowledged ones', async () => {
      const stream = `clicks:{${RUN}}`;
      const ids = [
        await store.appendToStream(stream, 'a'),
        await store.appendToStream(stream, 'b'),
        await store.appendToStream(stream, 'c'),
      ];
      await store.ensureStreamGroup(stream, 'writers');
      await store.ensureStreamGroup(stream, 'writers');
      expect(await store.readStreamGroup(stream, 'writers', 'one', 2)).toEqual([
        { id: ids[0], payload: 'a' },
        { id: ids[1], payload: 'b' },
      ]);
      expect(await store.readStreamGroup(stream, 'writers', 'one', 10)).toEqual([
        { id: ids[2], payload: 'c' },
      ]);
      expect(await store.readStreamGroup(stream, 'writers', 'one', 10)).toEqual([]);
      // Its own pending entries, read back at once, oldest first; none for another consumer.
      expect(await store.readOwnPending(stream, 'writers', 'one', 2)).toEqual([
        { id: ids[0], payload: 'a' },
        { id: ids[1], payload: 'b' },
      ]);
      expect(await store.readOwnPending(stream, 'writers', 'two', 10)).toEqual([]);
      // Not idle long enough yet: nothing to claim.
      expect(await store.claimIdleEntries(stream, 'writers', 'two', 60_000, 10)).toEqual([]);
      await sleep(20);
      expect(await store.claimIdleEntries(stream, 'writers', 'two', 10, 10)).toEqual([
        { id: ids[0], payload: 'a' },
        { id: ids[1], payload: 'b' },
        { id: ids[2], payload: 'c' },
      ]);
      expect(await store.readOwnPending(stream, 'writers', 'one', 10)).toEqual([]);
      await store.ackAndDelete(stream, 'writers', [ids[0], ids[1]]);
      expect(await store.readOwnPending(stream, 'writers', 'two', 10)).toEqual([
        { id: ids[2], payload: 'c' },
      ]);
      expect(await store.streamLength(stream)).toBe(1);
      // Trimmed, the stream starts at its oldest entry not yet acknowledged.
      expect(await store.firstStreamEntryId(stream)).toBe(ids[2]);
      await store.ackAndDelete(stream, 'writers', [ids[2]]);
      expect(await store.streamLength(stream)).toBe(0);
      expect(await store.firstStreamEntryId(stream)).toBeNull();
      expect(await store.claimIdleEntries(stream, 'writers', 'two', 0, 10)).toEqual([]);
    });

    it('should forget a deleted stream', async () => {
      const stream = `clicks:{${RUN}}:deleted`;
      await store.appendToStream(stream, 'a');
      await store.deleteKeys([stream]);
      expect(await store.streamLength(stream)).toBe(0);
    });
  });

  describe('pub/sub', () => {
    it('should hand a published message to the channel’s subscribers only', async () => {
      const received: string[] = [];
      await store.subscribe(`${RUN}:channel`, (message) => received.push(message));
      await store.publish(`${RUN}:other`, 'not for us');
      await store.publish(`${RUN}:channel`, 'hello');
      expect(
        await eventually(
          () => [...received],
          (messages) => messages.length > 0,
        ),
      ).toEqual(['hello']);
    });
  });
});

async function trafficOnAFreshMemoryStore(): Promise<string[]> {
  const memory = new MemoryKvStore();
  const random = seededRandom(42);
  const answers: string[] = [];
  let nowMs = T0;
  for (let i = 0; i < 200; i++) {
    nowMs += Math.floor(random() * 4_000);
    const limit = 1 + Math.floor(random() * 6);
    const decision = await hitSlidingWindows(memory, [{ key: 'traffic', limit }], nowMs, WINDOW_MS);
    answers.push(JSON.stringify(decision));
  }
  await memory.close();
  return answers;
}
