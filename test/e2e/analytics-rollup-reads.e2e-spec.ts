import * as fc from 'fast-check';
import { DataSource } from 'typeorm';
import { ulid } from 'ulid';
import { AnalyticsService } from '../../src/analytics/analytics.service';
import { ClickCountsService } from '../../src/analytics/click-counts.service';
import { ClickRecordMessage } from '../../src/analytics/click-record-codec';
import { CLICK_SOURCES } from '../../src/analytics/click-source';
import { TIMESERIES_GROUPS } from '../../src/analytics/dto/timeseries.query';
import type { RecordScope } from '../../src/common/access/auth-context';
import { clickWriter, moveWatermark, unsettledRowsOf, writeClicks } from '../support/click-rollups';
import {
  RawClickFilter,
  rawBucketCountsOf,
  rawClickCountOf,
  rawSummaryOf,
} from '../support/raw-click-analytics';
import { startTestApp, TestApp } from '../support/test-app';

const HOUR_MS = 3_600_000;
/**
 * Days either side of a month edge (and of a day edge between them), after every click of
 * the other tests: the watermark is moved among them, back and forth, and another test's
 * clicks stay settled all the while.
 */
const DAYS = ['2031-01-30', '2031-01-31', '2031-02-01', '2031-02-02', '2031-02-28', '2031-03-01'];
const RANGE_DAYS = ['2031-01-29', ...DAYS, '2031-03-02'];

/**
 * A watermark: the start of an hour of RANGE_DAYS (hour 24 is the next day's first), or of
 * the hour of one of the run's clicks or the one after it (so clicks fall on its very edge).
 */
const watermarkArbitrary = fc.record({
  day: fc.constantFrom(...RANGE_DAYS),
  hour: fc.integer({ min: 0, max: 24 }),
  ofClick: fc.option(fc.record({ index: fc.nat(), next: fc.boolean() })),
});
type Watermark = typeof watermarkArbitrary extends fc.Arbitrary<infer T> ? T : never;

function hourOfWatermark(watermark: Watermark, records: ClickRecordMessage[]): string {
  const { day, hour, ofClick } = watermark;
  if (ofClick === null || records.length === 0) {
    return new Date(Date.parse(`${day}T00:00:00.000Z`) + hour * HOUR_MS).toISOString();
  }
  const clickedAtMs = Date.parse(records[ofClick.index % records.length].clickedAt);
  const hourMs = Math.floor(clickedAtMs / HOUR_MS) * HOUR_MS;
  return new Date(hourMs + (ofClick.next ? HOUR_MS : 0)).toISOString();
}

const MERCHANTS = ['amazon', 'asos', 'nike', null] as const;
const NETWORKS = ['awin', 'amazon_associates', 'impact'] as const;
const PRESETS = ['default', 'link_in_bio', 'long_form'] as const;
const OUTCOMES = ['routed', 'fallback', 'passthrough'] as const;
const COUNTRIES = ['US', 'GB', 'IN', null] as const;
const DEVICES = ['desktop', 'mobile', 'tablet', 'unknown'] as const;
const ENVIRONMENTS = ['live', 'test'] as const;

/** A world of a few creators, each with a few links. */
interface World {
  creators: { creatorId: string; linkIds: string[] }[];
}

const newWorld = (): World => ({
  creators: Array.from({ length: 2 }, () => ({
    creatorId: ulid(),
    linkIds: Array.from({ length: 3 }, () => ulid()),
  })),
});

/** Indices into the world, so shrinking keeps them valid. */
const clickArbitrary = fc.record({
  creator: fc.nat(1),
  link: fc.nat(2),
  environment: fc.constantFrom(...ENVIRONMENTS),
  day: fc.constantFrom(...DAYS),
  // Either side of an hour edge, the day's own edges (hour 0 and 24) included.
  hour: fc.integer({ min: 0, max: 24 }),
  offsetMs: fc.constantFrom(-1, 0, 1, 999, -60_000, 1_799_999),
  merchantId: fc.constantFrom(...MERCHANTS),
  networkId: fc.constantFrom(...NETWORKS),
  preset: fc.constantFrom(...PRESETS),
  outcome: fc.constantFrom(...OUTCOMES),
  epcMicros: fc.integer({ min: 0, max: 3_000_000 }),
  confidenceTenThousandths: fc.integer({ min: 0, max: 11_000 }),
  visitorCountry: fc.constantFrom(...COUNTRIES),
  deviceClass: fc.constantFrom(...DEVICES),
  source: fc.constantFrom(...CLICK_SOURCES),
});
type GeneratedClick = typeof clickArbitrary extends fc.Arbitrary<infer T> ? T : never;

function recordOf(world: World, click: GeneratedClick): ClickRecordMessage {
  const { creatorId, linkIds } = world.creators[click.creator];
  const clickedAtMs =
    Date.parse(`${click.day}T00:00:00.000Z`) + click.hour * HOUR_MS + click.offsetMs;
  const isPassthrough = click.outcome === 'passthrough';
  return {
    recordId: ulid(clickedAtMs),
    clickedAt: new Date(clickedAtMs).toISOString(),
    linkId: linkIds[click.link],
    creatorId,
    merchantId: click.merchantId,
    region: isPassthrough ? null : 'US',
    networkId: isPassthrough ? null : click.networkId,
    preset: click.preset,
    outcome: click.outcome,
    normalizedEpcUsd: isPassthrough ? 0 : click.epcMicros / 1e6,
    confidence: isPassthrough ? 0 : click.confidenceTenThousandths / 1e4,
    deepLinkUsed: false,
    privateDealApplied: false,
    visitorCountry: click.visitorCountry,
    deviceClass: click.deviceClass,
    environment: click.environment,
    ruleIndex: null,
    source: click.source,
  };
}

/** Two days of RANGE_DAYS in order: an inclusive range. */
const rangeArbitrary = fc
  .tuple(fc.nat(RANGE_DAYS.length - 1), fc.nat(RANGE_DAYS.length - 1))
  .map(([a, b]) => ({ from: RANGE_DAYS[Math.min(a, b)], to: RANGE_DAYS[Math.max(a, b)] }));

const readArbitrary = fc.record({
  creator: fc.nat(1),
  environment: fc.constantFrom(...ENVIRONMENTS),
  range: rangeArbitrary,
  interval: fc.constantFrom('hour' as const, 'day' as const),
  groupBy: fc.constantFrom(...TIMESERIES_GROUPS),
  link: fc.option(fc.nat(2), { nil: undefined }),
  filter: fc.record(
    {
      merchantId: fc.constantFrom('amazon', 'asos', 'nike', 'unknown'),
      networkId: fc.constantFrom(...NETWORKS),
      outcome: fc.constantFrom(...OUTCOMES),
      preset: fc.constantFrom(...PRESETS),
      from: fc.constantFrom(...RANGE_DAYS),
      to: fc.constantFrom(...RANGE_DAYS),
    },
    { requiredKeys: [] },
  ),
});

describe('Analytics reads from the rollups (e2e, property)', () => {
  let t: TestApp;
  let source: DataSource;
  let analytics: AnalyticsService;
  let clickCounts: ClickCountsService;
  beforeAll(async () => {
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false' });
    source = t.app.get(DataSource);
    analytics = t.app.get(AnalyticsService);
    clickCounts = t.app.get(ClickCountsService);
  });
  afterAll(() => t.close());

  it('should answer every read exactly as a raw scan of the clicks would', async () => {
    const writer = clickWriter(t.app);
    await expect(
      fc.assert(
        fc.asyncProperty(
          fc.array(clickArbitrary, { maxLength: 150 }),
          fc.array(readArbitrary, { minLength: 1, maxLength: 6 }),
          // Before the first batch, between the two and after both: clicks reach the creator
          // rollups at once or when their hour is settled, and some are taken back out.
          fc.tuple(watermarkArbitrary, watermarkArbitrary, watermarkArbitrary),
          async (clicks, reads, watermarks) => {
            const world = newWorld();
            const records = clicks.map((click) => recordOf(world, click));
            // In two batches, as two passes of the writer would store them.
            const half = Math.floor(records.length / 2);
            await moveWatermark(t.app, hourOfWatermark(watermarks[0], records));
            if (half > 0) await writeClicks(writer, records.slice(0, half));
            await moveWatermark(t.app, hourOfWatermark(watermarks[1], records));
            if (records.length > half) await writeClicks(writer, records.slice(half));
            await moveWatermark(t.app, hourOfWatermark(watermarks[2], records));
            for (const read of reads) await expectSameAnswers(world, read);
            const creatorIds = world.creators.map((creator) => creator.creatorId);
            expect(await unsettledRowsOf(t.app, creatorIds)).toBe(0);
          },
        ),
        { numRuns: 40 },
      ),
    ).resolves.toBeUndefined();
  }, 120_000); // each run moves the watermark three times, under a lock of the rollups

  async function expectSameAnswers(
    world: World,
    read: typeof readArbitrary extends fc.Arbitrary<infer T> ? T : never,
  ): Promise<void> {
    const { creatorId, linkIds } = world.creators[read.creator];
    const scope: RecordScope = { creatorId, environment: read.environment };
    const { from, to } = read.range;
    const linkId = read.link === undefined ? undefined : linkIds[read.link];

    const summary = await analytics.summarise(scope, { periodStart: from, periodEnd: to });
    expect({
      totalClicks: summary.totalClicks,
      routedClicks: summary.routedClicks,
      passthroughClicks: summary.passthroughClicks,
      fallbackClicks: summary.fallbackClicks,
      averageConfidence: summary.averageConfidence,
      averageNormalizedEpcUsd: summary.averageNormalizedEpcUsd,
      byMerchant: summary.byMerchant.map(({ merchantId, clicks, averageEpcUsd }) => ({
        merchantId,
        clicks,
        averageEpcUsd,
      })),
      byNetwork: summary.byNetwork,
      byPreset: summary.byPreset,
    }).toEqual(await rawSummaryOf(source, scope, from, to));

    const series = await analytics.timeseries(scope, {
      interval: read.interval,
      from,
      to,
      groupBy: read.groupBy,
      ...(linkId === undefined ? {} : { linkId }),
    });
    const counted = new Map<string, number>();
    for (const { key, buckets } of series.series) {
      for (const { start, clicks = 0 } of buckets) {
        if (clicks > 0) counted.set(`${key ?? ''}|${start}`, clicks);
      }
    }
    expect(counted).toEqual(await rawBucketCountsOf(source, scope, { ...read, from, to, linkId }));

    const filter: RawClickFilter = { ...read.filter, ...(linkId === undefined ? {} : { linkId }) };
    if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to) {
      delete filter.to;
    }
    const list = await analytics.listClicks(scope, {
      ...(filter as Parameters<AnalyticsService['listClicks']>[1]),
      limit: 5,
    });
    const expectedTotal = await rawClickCountOf(source, scope, filter);
    expect(list.pagination.total).toBe(expectedTotal);
    expect(list.items.length).toBe(Math.min(5, expectedTotal));

    if (linkId !== undefined) {
      const report = await analytics.linkReport(scope, linkId, {
        periodStart: from,
        periodEnd: to,
      });
      expect(report.clicks).toBe(await rawClickCountOf(source, scope, { linkId, from, to }));
    }

    expect(await clickCounts.countSince(creatorId, read.environment, from)).toBe(
      await rawClickCountOf(source, scope, { from }),
    );
  }
});
