import * as fc from 'fast-check';
import { addToBuckets, admitClickInMemory, slidingCount } from './click-admission';

const WINDOW_MS = 60_000;
const T0 = 1_800_000_000_000 - (1_800_000_000_000 % WINDOW_MS); // a bucket boundary

describe(slidingCount.name, () => {
  it.each([
    ['the start of a bucket', 0, 10, 0, 10],
    ['half-way through a bucket', 30_000, 10, 4, 9],
    ['the last millisecond of a bucket', 59_999, 10, 4, 4 + 10 / 60_000],
  ])(
    'should weight the previous bucket by the share still in the window at %s',
    (_at, offset, previous, current, expected) => {
      const buckets = new Map([
        [T0 / WINDOW_MS - 1, previous],
        [T0 / WINDOW_MS, current],
      ]);
      expect(slidingCount(buckets, T0 + offset, WINDOW_MS)).toBeCloseTo(expected, 6);
    },
  );

  it('should never count more than the requests of the last two buckets', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3 * WINDOW_MS }), { maxLength: 300 }),
        (offsets) => {
          const sorted = [...offsets].sort((a, b) => a - b);
          const buckets = new Map<number, number>();
          for (const offset of sorted) addToBuckets(buckets, T0 + offset, WINDOW_MS);
          const now = T0 + (sorted.at(-1) ?? 0);
          const inTwoBuckets = sorted.filter(
            (o) => Math.floor((T0 + o) / WINDOW_MS) >= Math.floor(now / WINDOW_MS) - 1,
          ).length;
          expect(slidingCount(buckets, now, WINDOW_MS)).toBeLessThanOrEqual(inTwoBuckets);
          expect(buckets.size).toBeLessThanOrEqual(2);
        },
      ),
    );
  });
});

describe(admitClickInMemory.name, () => {
  const request = {
    nowMs: T0,
    windowMs: WINDOW_MS,
    ipLimit: 3,
    creatorLimit: 5,
    includedClicks: 100,
    isHardCap: false,
  };
  const fresh = () => ({
    ipBuckets: new Map<number, number>(),
    creatorBuckets: new Map<number, number>(),
    used: 0 as number | null,
  });

  it('should refuse the request after the IP limit in a fresh window, counting nothing', () => {
    const state = fresh();
    for (let i = 0; i < 3; i++) expect(admitClickInMemory(state, request).verdict).toBe('counted');
    expect(admitClickInMemory(state, request)).toEqual({ verdict: 'ip_limited', used: 3 });
    expect(state.used).toBe(3);
  });

  it('should refuse over the creator limit across addresses', () => {
    const state = fresh();
    for (let i = 0; i < 5; i++) {
      state.ipBuckets = new Map();
      expect(admitClickInMemory(state, request).verdict).toBe('counted');
    }
    state.ipBuckets = new Map();
    expect(admitClickInMemory(state, request).verdict).toBe('creator_limited');
  });

  it('should stop a hard-capped creator at its included clicks and let a paid one run over', () => {
    const capped = { ...fresh(), used: 100 };
    expect(admitClickInMemory(capped, { ...request, isHardCap: true })).toEqual({
      verdict: 'quota_exhausted',
      used: 100,
    });
    const paid = { ...fresh(), used: 100 };
    expect(admitClickInMemory(paid, request)).toEqual({ verdict: 'counted', used: 101 });
  });

  it('should ask for a seed when the quota counter is missing', () => {
    expect(admitClickInMemory({ ...fresh(), used: null }, request)).toEqual({
      verdict: 'quota_missing',
      used: 0,
    });
  });

  it('should admit again once the window has slid past the earlier requests', () => {
    const state = fresh();
    for (let i = 0; i < 3; i++) admitClickInMemory(state, request);
    expect(admitClickInMemory(state, { ...request, nowMs: T0 + 2 * WINDOW_MS }).verdict).toBe(
      'counted',
    );
  });

  it('should ask for the link seed, then stop a capped link at its maxClicks before any window', () => {
    const capped = { ...fresh(), linkClicks: null as number | null };
    expect(admitClickInMemory(capped, { ...request, maxClicks: 2 })).toEqual({
      verdict: 'cap_missing',
      used: 0,
    });
    capped.linkClicks = 1;
    expect(admitClickInMemory(capped, { ...request, maxClicks: 2 })).toEqual({
      verdict: 'counted',
      used: 1,
    });
    expect(capped.linkClicks).toBe(2);
    // Capped even for an address over its window: the link is gone for everyone alike.
    capped.ipBuckets = new Map([[T0 / WINDOW_MS, 99]]);
    expect(admitClickInMemory(capped, { ...request, maxClicks: 2 })).toEqual({
      verdict: 'capped',
      used: 1,
    });
    // Raising the cap reopens the link; a link without a cap never reads its counter.
    capped.ipBuckets = new Map();
    expect(admitClickInMemory(capped, { ...request, maxClicks: 3 }).verdict).toBe('counted');
    expect(admitClickInMemory({ ...fresh(), linkClicks: null }, request).verdict).toBe('counted');
  });

  it('should never count more clicks than maxClicks, whatever the traffic and windows', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.integer({ min: 0, max: 3 * WINDOW_MS }), { maxLength: 120 }),
        (maxClicks, seed, offsets) => {
          const state = { ...fresh(), linkClicks: seed as number | null };
          let counted = 0;
          for (const offset of [...offsets].sort((a, b) => a - b)) {
            state.ipBuckets = new Map();
            const answer = admitClickInMemory(state, {
              ...request,
              nowMs: T0 + offset,
              creatorLimit: 1000,
              maxClicks,
            });
            if (answer.verdict === 'counted') counted += 1;
          }
          // The windows never refuse here: every click up to the cap counts, none past it.
          expect(counted).toBe(Math.min(Math.max(maxClicks - seed, 0), offsets.length));
          expect(state.linkClicks).toBe(seed + counted);
        },
      ),
    );
  });
});
