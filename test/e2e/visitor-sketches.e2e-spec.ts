import { DataSource } from 'typeorm';
import { REPLAY_SPOOLED_CLICK_SCRIPT } from '../../src/clicks/click-spool-replay.script';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { clickStreamKey, edgeShardOf } from '../../src/analytics/click-streams';
import {
  dayBefore,
  LATE_SKETCHES_SCRIPT,
  lateSketchesKey,
  lateSketchMember,
  sketchKeyOf,
  UNIQUE_VISITORS_TTL_SECONDS,
} from '../../src/analytics/unique-visitors';
import { SketchMoveReport, VisitorSketchMover } from '../../src/analytics/visitor-sketch-mover';
import { VisitorHasherService } from '../../src/analytics/visitor-hasher.service';
import { KvStore } from '../../src/kv/kv-store';
import { buildAmazonUrl, createLinkViaApi } from '../factories/api-link.factory';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { DESKTOP_BROWSER_UA } from '../support/edge-visit';
import { pollUntil } from '../support/poll';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

/**
 * Unique-visitor sketches move from the key-value store to PostgreSQL once their day is over
 * by a day (docs/analytics.md "Unique visitors"): clicks on two days, then the mover run at
 * later times on a test clock. Every figure (summary, link report, per-day series) is the
 * same before and after each move, to the visitor; the old days' keys are gone, their rows
 * stored, and a second run changes nothing. On Redis and on the in-process store alike.
 */
const BROWSERS = [
  DESKTOP_BROWSER_UA,
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
];

/** 0.81% is the HyperLogLog's standard error; 3 standard errors, and at least 1. */
const tolerance = (n: number): number => Math.max(1, Math.ceil(3 * 0.0081 * n));

interface Figures {
  summary: number;
  links: number[];
  /** Each link's figure for each day alone, then the creator's: [day][link or creator]. */
  daysAlone: number[][];
  /** The daily series' uniqueVisitors: [series of link 0, link 1, the creator][day]. */
  series: number[][];
}

describe('Unique-visitor sketches moved to PostgreSQL (e2e)', () => {
  const clock = new TestClock();
  let t: TestApp;
  let creator: TestCreator;
  let api: ApiClient;
  let mover: VisitorSketchMover;
  let store: KvStore;
  let dataSource: DataSource;
  let linkIds: string[];
  let days: string[];

  beforeAll(async () => {
    clock.freezeAt(Date.now());
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false' }, { clock });
    mover = t.app.get(VisitorSketchMover);
    store = t.app.get(KvStore);
    dataSource = t.app.get(DataSource);
    // After the boot run, on days no run of this database has moved yet (the runs before
    // this one on the same database included): the first two after the last moved.
    await moveOnce();
    const [{ last }] = await dataSource.query<{ last: string }[]>(
      `SELECT max(day)::text AS last FROM visitor_sketch_moves`,
    );
    days = [dayBefore(last, -3), dayBefore(last, -4)];
    creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    api = createApiClient(t, creator);
    linkIds = [];
    for (let i = 0; i < 2; i++) {
      linkIds.push((await createLinkViaApi(api, { originalUrl: buildAmazonUrl() })).linkId);
    }
  });
  afterAll(() => t.close());

  /** A run of this app's mover; another app's run holding the lock is waited out. */
  const moveOnce = (): Promise<SketchMoveReport> =>
    pollUntil(
      () => mover.moveDueDays(),
      (report) => report.ran,
    );

  /** Noon of a day on the test clock, with that day's visitor secret in hand. */
  const goTo = async (day: string, hourMs = 12 * 3_600_000): Promise<void> => {
    clock.freezeAt(Date.parse(`${day}T00:00:00.000Z`) + hourMs);
    const hasher = t.app.get(VisitorHasherService);
    await pollUntil(
      () => Promise.resolve(hasher.hashOf('192.0.2.1', BROWSERS[0], clock.nowMs())),
      (hash) => hash !== null,
    );
  };

  const visit = (linkId: string, visitor: number) =>
    t.http
      .get(`/r/${linkId}`)
      .set({
        'User-Agent': BROWSERS[visitor % 2],
        'X-Forwarded-For': `10.77.${(visitor >> 8) & 255}.${visitor & 255}`,
      })
      .redirects(0)
      .expect(302);

  const uniqueVisitorsOf = async (path: string): Promise<number> =>
    (await api.get(path).expect(200)).body.data.uniqueVisitors as number;

  const figures = async (): Promise<Figures> => {
    const period = `periodStart=${days[0]}&periodEnd=${days[1]}`;
    const oneDay = (day: string) => `periodStart=${day}&periodEnd=${day}`;
    const seriesOf = async (linkId: string | null): Promise<number[]> => {
      const link = linkId === null ? '' : `&linkId=${linkId}`;
      const answer = await api
        .get(`/v1/analytics/timeseries?interval=day&from=${days[0]}&to=${days[1]}${link}`)
        .expect(200);
      const buckets = answer.body.data.series[0].buckets as { uniqueVisitors: number }[];
      return buckets.map((bucket) => bucket.uniqueVisitors);
    };
    return {
      summary: await uniqueVisitorsOf(`/v1/analytics/summary?${period}`),
      links: await Promise.all(
        linkIds.map((id) => uniqueVisitorsOf(`/v1/analytics/links/${id}?${period}`)),
      ),
      daysAlone: await Promise.all(
        days.map(async (day) => [
          ...(await Promise.all(
            linkIds.map((id) => uniqueVisitorsOf(`/v1/analytics/links/${id}?${oneDay(day)}`)),
          )),
          await uniqueVisitorsOf(`/v1/analytics/summary?${oneDay(day)}`),
        ]),
      ),
      series: [await seriesOf(linkIds[0]), await seriesOf(linkIds[1]), await seriesOf(null)],
    };
  };

  const keysOf = (day: string): string[] => [
    ...linkIds.map((linkId) => sketchKeyOf(creator.creatorId, 'live', linkId, day)),
    sketchKeyOf(creator.creatorId, 'live', null, day),
  ];
  const keysPresent = async (day: string): Promise<boolean[]> =>
    (await store.getBytes(keysOf(day))).map((value) => value !== null);
  const storedRows = () =>
    dataSource.query<{ link_id: string | null; day: string; visitors: number }[]>(
      `SELECT link_id, day::text AS day, visitors FROM visitor_sketches
        WHERE creator_id = $1 ORDER BY day, link_id NULLS LAST`,
      [creator.creatorId],
    );

  let before: Figures;

  it('should count each day’s visitors per link, per creator and per day of the series', async () => {
    // Day 0: visitors 0-59 on link 0, 40-79 on link 1 (twice each). Day 1: visitors 0-29 on
    // link 0 only: the same people, other visitor-days (the hash key is the day's).
    await goTo(days[0]);
    for (let visitor = 0; visitor < 80; visitor++) {
      if (visitor < 60) await visit(linkIds[0], visitor);
      if (visitor >= 40) await visit(linkIds[1], visitor);
      if (visitor % 10 === 0) await visit(linkIds[visitor < 60 ? 0 : 1], visitor);
    }
    await goTo(days[1]);
    for (let visitor = 0; visitor < 30; visitor++) await visit(linkIds[0], visitor);
    await t.app.get(ClickStreamConsumer).drainOnce();

    before = await figures();

    const expected = {
      daysAlone: [
        [60, 40, 80],
        [30, 0, 30],
      ],
      links: [90, 40],
      summary: 110,
    };
    expected.daysAlone.forEach((perDay, day) =>
      perDay.forEach((visitors, at) =>
        expect(Math.abs(before.daysAlone[day][at] - visitors)).toBeLessThanOrEqual(
          tolerance(visitors),
        ),
      ),
    );
    expected.links.forEach((visitors, at) =>
      expect(Math.abs(before.links[at] - visitors)).toBeLessThanOrEqual(tolerance(visitors)),
    );
    expect(Math.abs(before.summary - expected.summary)).toBeLessThanOrEqual(tolerance(110));
    // A day's bucket is that day's figure exactly: the same sketch, the same estimator.
    expect(before.series).toEqual(
      [0, 1, 2].map((at) => days.map((_, day) => before.daysAlone[day][at])),
    );
    expect(await keysPresent(days[0])).toEqual([true, true, true]);
  });

  it('should move a day once it is over by a day, its figures unchanged, and move nothing twice', async () => {
    await goTo(dayBefore(days[1], -1));
    const first = await moveOnce();

    expect(first.days).toContain(days[0]);
    expect(first.days).not.toContain(days[1]);
    // Other suites' sketches of those days may move too (a shared Redis): counted from here.
    expect(first.waitingFor).toBeNull();
    expect(await keysPresent(days[0])).toEqual([false, false, false]);
    expect(await keysPresent(days[1])).toEqual([true, false, true]);
    expect((await storedRows()).map((row) => [row.link_id, row.day])).toEqual([
      ...[...linkIds].sort().map((linkId) => [linkId, days[0]]),
      [null, days[0]],
    ]);
    expect(await figures()).toEqual(before);

    const second = await moveOnce();
    expect(second).toMatchObject({ days: [], sketches: 0, deletedKeys: 0, lateSketches: 0 });
    expect(await figures()).toEqual(before);
  });

  it('should move the next day a day later, leaving the store nothing of either', async () => {
    await goTo(dayBefore(days[1], -2));
    const report = await moveOnce();

    expect(report.days).toEqual([days[1]]);
    expect(await keysPresent(days[1])).toEqual([false, false, false]);
    expect((await storedRows()).filter((row) => row.day === days[1]).length).toBe(2);
    expect(await figures()).toEqual(before);
  });

  it('should move again a day a spool replay added a visitor to after it was moved', async () => {
    const shard = edgeShardOf(creator.creatorId);
    const keys = keysOf(days[0]);
    const lateVisitor = 'a visitor replayed from the spool';
    await store.runScript(
      REPLAY_SPOOLED_CLICK_SCRIPT,
      [`${clickStreamKey(shard)}:late-test`, keys[0], keys[2], lateSketchesKey(shard)],
      [
        'record',
        lateVisitor,
        UNIQUE_VISITORS_TTL_SECONDS,
        lateSketchMember({
          creatorId: creator.creatorId,
          environment: 'live',
          linkId: linkIds[0],
          day: days[0],
        }),
      ],
    );
    await store.deleteKeys([`${clickStreamKey(shard)}:late-test`]);
    const withLate = await figures();
    expect(withLate.daysAlone[0][0]).toBe(before.daysAlone[0][0] + 1);

    const report = await moveOnce();

    expect(report).toMatchObject({ days: [], lateSketches: 1, sketches: 2, deletedKeys: 2 });
    expect(await keysPresent(days[0])).toEqual([false, false, false]);
    expect(await store.runScript(LATE_SKETCHES_SCRIPT, [lateSketchesKey(shard)], [])).not.toContain(
      lateSketchMember({
        creatorId: creator.creatorId,
        environment: 'live',
        linkId: linkIds[0],
        day: days[0],
      }),
    );
    expect(await figures()).toEqual(withLate);
  });

  it('should answer days whose keys are gone and were never moved as 0 visitors', async () => {
    const never = dayBefore(days[1], -1);
    const answer = await api
      .get(`/v1/analytics/timeseries?interval=day&from=${never}&to=${never}`)
      .expect(200);
    expect(answer.body.data.series[0].buckets[0].uniqueVisitors).toBe(0);
  });
});
