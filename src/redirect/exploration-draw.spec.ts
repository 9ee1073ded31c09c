import fc from 'fast-check';
import { VisitorHasherService } from '../analytics/visitor-hasher.service';
import { Clock } from '../common/clock';
import { MemoryKvStore } from '../kv/memory-kv-store';
import type { RouteLearning } from '../routing/engine';
import { EXPLORATION_LANES } from '../routing/engine/learned-epc';
import { explorationDrawOf, explorationLaneFor } from './exploration-draw';
import type { EdgeVisitor } from './visitor-context';

const DAY_MS = 86_400_000;
const DAY_ONE_MS = Date.parse('2026-03-02T00:00:00Z');
const LINK_ID = '01JD5ZQ7X6M3W1H8K2C4N9P0RT';
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/124.0 Safari/537.36';
const VISITORS = 20_000;

const learningWith = (explorationShare: number): RouteLearning => ({
  priorClicks: 200,
  explorationShare,
  observed: {},
});
const DESKTOP: EdgeVisitor = {
  exclusion: null,
  visitor: { country: 'US', device: 'desktop', os: null, isInAppBrowser: false },
};
const addressOf = (i: number): string => `198.18.${(i >> 8) & 255}.${i & 255}`;

class TestClock extends Clock {
  ms = DAY_ONE_MS;
  nowMs(): number {
    return this.ms;
  }
}

describe('Exploration draw', () => {
  const clock = new TestClock();
  const store = new MemoryKvStore(() => clock.ms);
  // The redirect's own visitor hashes, with fixed day secrets so the figures below repeat.
  const hasher = new VisitorHasherService(store, clock);
  const hashOn = (dayMs: number, i: number, userAgent = UA): string => {
    const visitorHash = hasher.hashOf(addressOf(i), userAgent, dayMs);
    if (visitorHash === null) throw new Error('The day secret is not loaded');
    return visitorHash;
  };
  const drawOn = (dayMs: number, i: number): number => explorationDrawOf(hashOn(dayMs, i), LINK_ID);

  beforeAll(async () => {
    for (const dayMs of [DAY_ONE_MS, DAY_ONE_MS + DAY_MS]) {
      const day = new Date(dayMs).toISOString().slice(0, 10);
      await store.setString(`uv:secret:${day}`, Buffer.alloc(32, day).toString('base64'), 3600);
    }
    await hasher.onModuleInit();
  });
  afterAll(async () => {
    hasher.onModuleDestroy();
    await store.close();
  });

  it('should give a visitor the same draw on a link at any time of the day', () => {
    fc.assert(
      fc.property(
        fc.nat(65_535),
        fc.string(),
        fc.integer({ min: 0, max: DAY_MS - 1 }),
        fc.integer({ min: 0, max: DAY_MS - 1 }),
        (i, userAgent, earlierMs, laterMs) => {
          const first = explorationDrawOf(hashOn(DAY_ONE_MS + earlierMs, i, userAgent), LINK_ID);
          const again = explorationDrawOf(hashOn(DAY_ONE_MS + laterMs, i, userAgent), LINK_ID);
          expect(again).toBe(first);
          expect(first).toBeGreaterThanOrEqual(0);
          expect(first).toBeLessThan(1);
        },
      ),
    );
  });

  it('should spread the draws of distinct visitors evenly over [0, 1)', () => {
    const deciles = new Array<number>(10).fill(0);
    for (let i = 0; i < VISITORS; i += 1) deciles[Math.floor(drawOn(DAY_ONE_MS, i) * 10)] += 1;

    // 2,000 expected per decile; a standard deviation is 42.
    for (const count of deciles) expect(Math.abs(count - VISITORS / 10)).toBeLessThan(200);
  });

  it('should draw anew the next day and on another link, independently of the day before', () => {
    const explorersOnDayOne: number[] = [];
    let sameDraws = 0;
    for (let i = 0; i < VISITORS; i += 1) {
      const today = drawOn(DAY_ONE_MS, i);
      if (today === drawOn(DAY_ONE_MS + DAY_MS, i)) sameDraws += 1;
      if (today === explorationDrawOf(hashOn(DAY_ONE_MS, i), `${LINK_ID}X`)) sameDraws += 1;
      if (today < 0.05) explorersOnDayOne.push(i);
    }
    const exploringAgain = explorersOnDayOne.filter((i) => drawOn(DAY_ONE_MS + DAY_MS, i) < 0.05);

    expect(sameDraws).toBe(0);
    // Yesterday's explorers explore today at the base rate (5 %), not all again.
    expect(explorersOnDayOne.length).toBeGreaterThan(800);
    expect(exploringAgain.length / explorersOnDayOne.length).toBeLessThan(0.1);
  });

  it.each([0.05, 0.2, 0.5])(
    'should send about %p of distinct visitors exploring, over every lane',
    (share) => {
      const lanes = new Map<number, number>();
      for (let i = 0; i < VISITORS; i += 1) {
        const lane = explorationLaneFor(
          learningWith(share),
          DESKTOP,
          hashOn(DAY_ONE_MS, i),
          LINK_ID,
        );
        if (lane !== null) lanes.set(lane, (lanes.get(lane) ?? 0) + 1);
      }
      const explorers = [...lanes.values()].reduce((sum, count) => sum + count, 0);

      // Four standard deviations of a binomial share over 20,000 visitors.
      const tolerance = 4 * Math.sqrt((share * (1 - share)) / VISITORS);
      expect(Math.abs(explorers / VISITORS - share)).toBeLessThan(tolerance);
      expect(lanes.size).toBe(EXPLORATION_LANES);
    },
  );

  it('should never explore without a visitor context, a day secret or a share', () => {
    const everyone = learningWith(0.5);
    // A draw below every share: this visitor explores whenever exploring is possible.
    const explorer = Array.from({ length: 200 }, (_, i) => hashOn(DAY_ONE_MS, i)).find(
      (candidate) => explorationDrawOf(candidate, LINK_ID) < 0.01,
    ) as string;

    expect(explorationLaneFor(learningWith(0.05), DESKTOP, explorer, LINK_ID)).not.toBeNull();
    expect(
      explorationLaneFor(everyone, { exclusion: null, visitor: null }, explorer, LINK_ID),
    ).toBe(null);
    expect(explorationLaneFor(everyone, DESKTOP, null, LINK_ID)).toBeNull();
    expect(explorationLaneFor(learningWith(0), DESKTOP, explorer, LINK_ID)).toBeNull();
  });
});
