import { randomInt } from 'node:crypto';
import { UniqueVisitorsService } from './unique-visitors.service';
import { AnalyticsDatabase } from '../database/analytics-database';
import { ExcludedHitsRepository } from './excluded-hits.repository';
import { LinkAnalyticsResponse } from './link-analytics.response';
import { normaliseLinkId } from '../common/ids';
import { TimeseriesGroup, TimeseriesMetric, TimeseriesQuery } from './dto/timeseries.query';
import {
  bucketCountOf,
  bucketStartsOf,
  MAX_TIMESERIES_BUCKETS,
  MAX_TIMESERIES_POINTS,
  maxSeriesOf,
  Series,
  TimeseriesInterval,
  timeseriesPeriodOf,
  withUniqueVisitors,
  zeroFilledSeries,
} from './time-buckets';
import { TimeseriesResponse } from './timeseries.response';
import type { RecordScope } from '../common/access/auth-context';
import { Injectable } from '@nestjs/common';
import { InjectConfig } from '../config/config.module';
import { DatabaseConfig, RetentionConfig } from '../config/env';
import { PointsBudget } from './points-budget';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { DEFAULT_PAGE_SIZE, paginationMeta } from '../common/pagination';
import { MerchantsService } from '../merchants/merchants.service';
import {
  DayPeriod,
  instantRangeOf,
  MAX_SUMMARY_SPAN_DAYS,
  spanDaysOf,
  summaryPeriodOf,
  utcDateOf,
} from './analytics-dates';
import {
  AnalyticsSummaryResponse,
  UNKNOWN_MERCHANT_DISPLAY_NAME,
} from './analytics-summary.response';
import { decodeClickCursor, encodeClickCursor } from './click-cursor';
import { monthStartBefore } from './click-retention-months';
import { toClickRecordResponse } from './click.mapper';
import { ClickListResponse } from './click.response';
import { ClicksRepository } from './clicks.repository';
import {
  ClickRollupReadsRepository,
  DayRange,
  RollupClickFilter,
  SeriesRollup,
  TotalRollup,
} from './click-rollup-reads.repository';
import { AnalyticsSummaryQuery } from './dto/analytics-summary.query';
import { ConversionRollupReadsRepository } from './conversion-rollup-reads.repository';
import { toEarningsResponse } from './earnings.response';
import { ListClicksQuery } from './dto/list-clicks.query';

/**
 * The click list pages down to this record at most (page × limit): an OFFSET walks every row
 * before the page, so deeper sets are narrowed by date, as the spec says for sets over 10,000,
 * or walked by cursor (a keyset, the same cost at any depth).
 */
const MAX_CLICK_LIST_DEPTH = 10_000;

/** Click records and their summary, always of the calling creator and key environment only. */
@Injectable()
export class AnalyticsService {
  constructor(
    private readonly clicks: ClicksRepository,
    private readonly rollups: ClickRollupReadsRepository,
    private readonly conversionRollups: ConversionRollupReadsRepository,
    private readonly excludedHits: ExcludedHitsRepository,
    private readonly reads: AnalyticsDatabase,
    private readonly uniqueVisitors: UniqueVisitorsService,
    private readonly merchants: MerchantsService,
    private readonly clock: Clock,
    @InjectConfig('database') database: DatabaseConfig,
    @InjectConfig('retention') private readonly retention: RetentionConfig,
  ) {
    this.pointsPerSecond = database.analytics.pointsPerSecond;
    // A tenth of a second's points: calls are spaced by the rate, never built by the dozen.
    this.points = new PointsBudget(
      this.pointsPerSecond,
      this.pointsPerSecond / 10,
      performance.now(),
    );
  }

  private readonly pointsPerSecond: number;
  /** Real time, not the app clock: it meters this process's CPU. */
  private readonly points: PointsBudget;

  async listClicks(scope: RecordScope, query: ListClicksQuery): Promise<ClickListResponse> {
    const { page, limit = DEFAULT_PAGE_SIZE, from, to, cursor, ...filter } = query;
    if (from !== undefined && to !== undefined && from > to) {
      throw invalidField('from', `from (${from}) must be on or before to (${to})`);
    }
    const after = cursor === undefined ? null : decodeClickCursor(cursor);
    if (cursor !== undefined && after === null) {
      throw invalidField('cursor', 'cursor must be a pagination.nextCursor this API answered');
    }
    if (after !== null && page !== undefined) {
      throw invalidField(
        'page',
        'page and cursor exclude each other: a cursor says where it goes on',
      );
    }
    const offset = after?.offset ?? ((page ?? 1) - 1) * limit;
    if (after === null && offset + limit > MAX_CLICK_LIST_DEPTH) {
      throw invalidField(
        'page',
        `pages reach at most the ${MAX_CLICK_LIST_DEPTH}th click (page × limit); page ${page} ` +
          `of ${limit} ends at the ${offset + limit}th: walk on with cursor, or narrow by from ` +
          'and to (or another filter)',
      );
    }
    // The raw retention: older clicks are dropped (or about to be), while the rollups that
    // give the total keep counting them, so both are taken from the same first day (a `to`
    // before it then finds nothing in either).
    const coveredFrom = this.firstListedDay(from);
    const { clicks, total } = await this.reads.read(async (source) => {
      const total = await this.rollups.countClicks(source, scope, totalRollupOf(filter), {
        ...filter,
        from: coveredFrom,
        to,
      });
      if (after === null && offset >= total) return { clicks: [], total };
      const position =
        after === null
          ? { offset }
          : { after: { clickedAt: new Date(after.clickedAtMs), recordId: after.recordId } };
      // One click more than the page tells whether there is a next one.
      const range = instantRangeOf(coveredFrom, to);
      const clicks = await this.clicks.listPageInScope(
        scope,
        { ...filter, ...range },
        position,
        limit + 1,
      );
      return { clicks, total };
    });
    const items = clicks.slice(0, limit);
    const last = items.at(-1);
    const nextCursor =
      clicks.length > limit && last !== undefined
        ? encodeClickCursor({
            clickedAtMs: last.clickedAt.getTime(),
            recordId: last.recordId,
            offset: offset + items.length,
          })
        : null;
    return {
      items: items.map(toClickRecordResponse),
      pagination: { ...paginationMeta(Math.floor(offset / limit) + 1, limit, total), nextCursor },
    };
  }

  /**
   * The first day the clicks list covers: `from`, but never before the raw retention (the 1st
   * of the month CLICK_RETENTION_MONTHS before the current one), whose clicks are dropped.
   */
  private firstListedDay(from: string | undefined): string {
    const retained = utcDateOf(monthStartBefore(this.clock.nowMs(), this.retention.clickMonths));
    return from === undefined || from < retained ? retained : from;
  }

  async summarise(
    scope: RecordScope,
    query: AnalyticsSummaryQuery,
  ): Promise<AnalyticsSummaryResponse> {
    const period = this.checkedPeriod(query);
    // One analytics slot for the statements, one after the other (analytics-database.ts).
    const [aggregates, ledger, uniqueVisitors, earnings, unattributedConversions] =
      await this.reads.read(
        async (source) =>
          [
            await this.rollups.aggregate(source, scope, daysOf(period)),
            await this.excludedHits.totals(scope, period, null),
            await this.uniqueVisitors.count(source, scope, period, null),
            await this.conversionRollups.earnings(source, scope, daysOf(period), null),
            await this.conversionRollups.unattributedConversions(source, scope, daysOf(period)),
          ] as const,
      );
    return {
      ...period,
      ...aggregates.totals,
      uniqueVisitors,
      ...ledger,
      byMerchant: aggregates.byMerchant.map(({ key, clicks, averageEpcUsd }) => ({
        merchantId: key,
        merchantDisplayName: this.displayNameOf(key),
        clicks,
        averageEpcUsd,
      })),
      byNetwork: aggregates.byNetwork.map(({ key, clicks, averageEpcUsd }) => ({
        networkId: key,
        clicks,
        averageEpcUsd,
      })),
      byPreset: aggregates.byPreset.map(({ key, clicks }) => ({ preset: key, clicks })),
      earnings: { ...toEarningsResponse(earnings), unattributedConversions },
    };
  }

  /**
   * Clicks per UTC hour or day, zero-filled, optionally one series per group; at most
   * MAX_TIMESERIES_BUCKETS buckets and MAX_TIMESERIES_POINTS points (400 beyond, naming the
   * limit and how to narrow the request).
   */
  async timeseries(scope: RecordScope, query: TimeseriesQuery): Promise<TimeseriesResponse> {
    const interval = query.interval ?? 'day';
    const groupBy = query.groupBy ?? 'none';
    const metric = query.metric ?? 'clicks';
    if (metric !== 'clicks' && groupBy === 'outcome') {
      throw invalidField(
        'groupBy',
        `groupBy=outcome counts clicks only (a conversion has no routing outcome); ask for metric=clicks, or group otherwise`,
      );
    }
    if (metric !== 'clicks' && groupBy === 'source') {
      throw invalidField(
        'groupBy',
        `groupBy=source counts clicks only (conversions are not kept by click source); ask for metric=clicks, or group otherwise`,
      );
    }
    const { from, to } = timeseriesPeriodOf(interval, query, this.clock.nowMs());
    if (from > to) throw invalidField('from', `from (${from}) must be on or before to (${to})`);
    const buckets = bucketCountOf(interval, from, to);
    if (buckets > MAX_TIMESERIES_BUCKETS) {
      throw invalidField(
        'to',
        `a time series has at most ${MAX_TIMESERIES_BUCKETS} buckets; ${from} to ${to} by ${interval} is ${buckets}`,
      );
    }
    const maxSeries = groupBy === 'none' ? 1 : maxSeriesOf(buckets);
    const reserved = maxSeries * buckets;
    this.reservePoints(reserved);
    let answered = 0;
    try {
      // One key more than fits tells the answer would not fit, without fetching the rest.
      const linkId =
        query.linkId === undefined ? null : (normaliseLinkId(query.linkId) ?? query.linkId);
      // A day's sketch is of one link or of the scope, never of a group, and there is none
      // per hour: only the ungrouped daily series carries unique visitors.
      const withVisitors = interval === 'day' && groupBy === 'none' && metric === 'clicks';
      const [counts, visitorsPerDay] = await this.reads.read(
        async (source) =>
          [
            metric === 'clicks'
              ? await this.rollups.countPerBucket(source, scope, {
                  rollup: seriesRollupOf(interval, groupBy, linkId),
                  interval,
                  days: { from, to },
                  linkId,
                  groupBy,
                  maxKeys: maxSeries + 1,
                })
              : await this.conversionRollups.perBucket(source, scope, {
                  metric,
                  interval,
                  days: { from, to },
                  linkId,
                  groupBy,
                  maxKeys: maxSeries + 1,
                }),
            withVisitors
              ? await this.uniqueVisitors.perDay(source, scope, { from, to }, linkId)
              : null,
          ] as const,
      );
      if (new Set(counts.map((count) => count.key)).size > maxSeries) {
        throw invalidField(
          'groupBy',
          `a time series answers at most ${MAX_TIMESERIES_POINTS} points (series × buckets); ` +
            `${from} to ${to} by ${interval} is ${buckets} buckets, room for ${maxSeries} series, ` +
            `and more than ${maxSeries} ${GROUP_NOUNS[groupBy]} have ${metric}: shorten the range` +
            `${interval === 'hour' ? ', count by day' : ''}, narrow by linkId, or group otherwise`,
        );
      }
      const series = zeroFilledSeries(
        bucketStartsOf(interval, from, to),
        counts,
        groupBy !== 'none',
      );
      if (visitorsPerDay !== null) withUniqueVisitors(series[0], visitorsPerDay);
      answered = series.length * buckets;
      return { interval, from, to, groupBy, metric, series: withMetric(series, metric) };
    } finally {
      this.points.release(reserved - answered, performance.now());
    }
  }

  /**
   * Reserves the most points a call can answer; 503 ANALYTICS_BUSY while the points already
   * reserved are over the budget.
   */
  private reservePoints(points: number): void {
    const budgetWaitSeconds = this.points.reserve(points, performance.now());
    if (budgetWaitSeconds === 0) return;
    // Callers refused in the same moment are told different waits (the budget's, up to twice
    // it), so they do not all come back in the same second: thirty dashboards retrying
    // together made bursts of API work that held the redirects up by 100 ms and more.
    const waitSeconds = budgetWaitSeconds + randomInt(budgetWaitSeconds + 1);
    throw new AppError(
      ErrorCode.ANALYTICS_BUSY,
      `Time series are at capacity on this server: ${this.pointsPerSecond} points a second ` +
        `(ANALYTICS_POINTS_PER_SECOND), so the redirects keep the CPU they need. Retry in ` +
        `${waitSeconds} seconds, or ask for fewer series or buckets.`,
      undefined,
      { 'retry-after': String(waitSeconds) },
    );
  }

  /** Removes the scope's test clicks (the sandbox reset); answers how many there were. */
  async purgeTestClicks(scope: RecordScope): Promise<number> {
    await this.excludedHits.purgeTestScope(scope);
    return this.clicks.purgeTestScope(scope);
  }

  /**
   * One link's period (the summary's period rules): counted clicks and the excluded-hit
   * ledger. The caller has checked the link is the scope's (links owns that).
   */
  async linkReport(
    scope: RecordScope,
    linkId: string,
    query: AnalyticsSummaryQuery,
  ): Promise<LinkAnalyticsResponse> {
    const period = this.checkedPeriod(query);
    const [ledger, uniqueVisitors, earnings] = await this.reads.read(
      async (source) =>
        [
          await this.excludedHits.totals(scope, period, linkId),
          await this.uniqueVisitors.count(source, scope, period, linkId),
          await this.conversionRollups.earnings(source, scope, daysOf(period), linkId),
        ] as const,
    );
    return {
      linkId,
      ...period,
      // The earnings' totals count every click of the link, passthrough ones included: the
      // same sum over the same link rollup rows, so the rows are read once, not twice.
      clicks: earnings.totals.clicks,
      uniqueVisitors,
      ...ledger,
      earnings: toEarningsResponse(earnings),
    };
  }

  /** The requested or default period, refused when reversed or longer than 366 days. */
  private checkedPeriod(query: AnalyticsSummaryQuery): DayPeriod {
    const period = summaryPeriodOf(query, this.clock.nowMs());
    if (period.periodStart > period.periodEnd) {
      throw invalidField(
        'periodStart',
        `periodStart (${period.periodStart}) must be on or before periodEnd (${period.periodEnd})`,
      );
    }
    const spanDays = spanDaysOf(period);
    if (spanDays > MAX_SUMMARY_SPAN_DAYS) {
      throw invalidField(
        'periodEnd',
        `the period covers at most ${MAX_SUMMARY_SPAN_DAYS} days; ${period.periodStart} to ${period.periodEnd} is ${spanDays}`,
      );
    }
    return period;
  }

  /** A merchant gone from the knowledge base keeps its id as its name. */
  private displayNameOf(merchantId: string | null): string {
    if (merchantId === null) return UNKNOWN_MERCHANT_DISPLAY_NAME;
    return this.merchants.knowledgeBase.find(merchantId)?.displayName ?? merchantId;
  }
}

/** What the series of each grouping are, in a refusal's words. */
const GROUP_NOUNS: Record<TimeseriesGroup, string> = {
  none: 'series',
  country: 'countries',
  device: 'device classes',
  network: 'networks',
  outcome: 'outcomes',
  source: 'sources',
};

/** The series with each bucket's value under the metric's name (counted as `clicks`). */
function withMetric(series: Series[], metric: TimeseriesMetric): TimeseriesResponse['series'] {
  if (metric === 'clicks') return series;
  return series.map(({ key, buckets }) => ({
    key,
    buckets: buckets.map(({ start, clicks }) => ({ start, [metric]: clicks })),
  }));
}

/** An inclusive period of days as the rollups' day range. */
function daysOf(period: DayPeriod): Required<DayRange> {
  return { from: period.periodStart, to: period.periodEnd };
}

/**
 * The rollup that answers a time series (docs/analytics.md), the narrowest holding its
 * grouping: one link's from the link rollup; otherwise countries from the country hours,
 * devices and sources from the device hours (keyed by both), outcomes and every hourly series from the route hours
 * (daily buckets add up 24 hours), and daily series by network or none from the region days.
 */
function seriesRollupOf(
  interval: TimeseriesInterval,
  groupBy: TimeseriesGroup,
  linkId: string | null,
): SeriesRollup {
  if (linkId !== null) return 'links';
  if (groupBy === 'country') return 'country_hours';
  if (groupBy === 'device' || groupBy === 'source') return 'device_hours';
  return interval === 'hour' || groupBy === 'outcome' ? 'route_hours' : 'region_days';
}

/**
 * The rollup that answers a click total, the narrowest holding the filter's columns
 * (docs/analytics.md): one link's from the link rollup; with a merchant, outcome or preset
 * from the route days; else from the region days, a fraction of their rows.
 */
function totalRollupOf(filter: RollupClickFilter): TotalRollup {
  if (filter.linkId !== undefined) return 'links';
  const needsRoute =
    filter.merchantId !== undefined || filter.outcome !== undefined || filter.preset !== undefined;
  return needsRoute ? 'route_days' : 'region_days';
}

function invalidField(field: string, message: string): AppError {
  return new AppError(ErrorCode.VALIDATION_ERROR, `Invalid request: ${field}.`, {
    [field]: [message],
  });
}
