import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { KeyEnvironment, RecordScope } from '../common/access/auth-context';
import { startOfDay, startOfNextDay } from './analytics-dates';
import type { DayRange, QuerySource } from './click-rollup-reads.repository';
import type { TimeseriesGroup } from './dto/timeseries.query';
import type { BucketCount, TimeseriesInterval } from './time-buckets';

/** Conversions and commission of a group, net of reversals, with its counted clicks. */
export interface EarningsFigures {
  clicks: number;
  conversions: number;
  approvedCommissionUsd: number;
  pendingCommissionUsd: number;
}

export interface EarningsGroups {
  totals: EarningsFigures;
  byNetwork: (EarningsFigures & { networkId: string })[];
  byRegion: (EarningsFigures & { region: string | null })[];
}

/** A route's trailing figures, for learned routing (realisedEpcByRoute). */
export interface RealisedEpcRow {
  merchantId: string;
  networkId: string;
  region: string | null;
  clicks: number;
  conversions: number;
  /** Approved plus pending, net of reversals. */
  commissionUsd: number;
  approvedCommissionUsd: number;
  pendingCommissionUsd: number;
}

/** The value a conversion time series counts per bucket. */
export type ConversionMetric = 'conversions' | 'commissionUsd';

const METRIC_SQL: Record<ConversionMetric, string> = {
  conversions: 'sum(conversions)::float8',
  commissionUsd: 'round(sum(approved_commission_usd + pending_commission_usd), 6)::float8',
};

/** The conversion rollups' column per time-series grouping (`outcome`, `source` have none). */
const GROUP_COLUMNS: Partial<Record<TimeseriesGroup, string | null>> = {
  none: null,
  country: 'visitor_country',
  device: 'device_class',
  network: 'network_id',
};

interface FiguresRow {
  network_id: string | null;
  region: string | null;
  grouping_mask: number;
  clicks: string | number;
  conversions: string | number;
  approved: string;
  pending: string;
}

// GROUPING(network_id, region): 0b01 per network, 0b10 per region, 0b11 the grand total.
const PER_NETWORK = 0b01;
const PER_REGION = 0b10;
const GRAND_TOTAL = 0b11;

/** Days `$3` to `$4` (the period's first instant and the next day's), as a date column's bounds. */
const DAYS_OF_PERIOD = `day >= ($3::timestamptz AT TIME ZONE 'UTC')::date AND day < ($4::timestamptz AT TIME ZONE 'UTC')::date`;

/**
 * Clicks and conversions of one period per network and region, joined group for group.
 * Clicks come from the click rollup by day, network and region (the scope's) or the link
 * rollup (one link's), the conversions from a conversion rollup; both sources are fixed SQL
 * chosen by the caller, never from the request.
 */
function figuresSql(clickSource: string, conversionSource: string): string {
  return `
    WITH click_groups AS (
      SELECT network_id, region, sum(clicks)::bigint AS clicks
        FROM ${clickSource}
       GROUP BY 1, 2),
    conversion_groups AS (
      SELECT network_id, region, sum(conversions)::bigint AS conversions,
             sum(approved_commission_usd) AS approved, sum(pending_commission_usd) AS pending
        FROM ${conversionSource}
       GROUP BY 1, 2),
    joined AS (
      SELECT coalesce(c.network_id, v.network_id) AS network_id,
             CASE WHEN c.network_id IS NOT NULL THEN c.region ELSE v.region END AS region,
             coalesce(c.clicks, 0) AS clicks, coalesce(v.conversions, 0) AS conversions,
             coalesce(v.approved, 0) AS approved, coalesce(v.pending, 0) AS pending
        FROM click_groups AS c
        FULL JOIN conversion_groups AS v
          ON c.network_id = v.network_id AND coalesce(c.region, '') = coalesce(v.region, ''))
    SELECT GROUPING(network_id, region)::int AS grouping_mask, network_id, region,
           sum(clicks) AS clicks, sum(conversions) AS conversions,
           round(sum(approved), 6) AS approved, round(sum(pending), 6) AS pending
      FROM joined
     GROUP BY GROUPING SETS ((), (network_id), (region))
     ORDER BY grouping_mask, sum(approved + pending) DESC, sum(clicks) DESC,
              network_id ASC NULLS LAST, region ASC NULLS LAST`;
}

const figuresOf = (row: FiguresRow | undefined): EarningsFigures => ({
  clicks: Number(row?.clicks ?? 0),
  conversions: Number(row?.conversions ?? 0),
  approvedCommissionUsd: Number(row?.approved ?? 0),
  pendingCommissionUsd: Number(row?.pending ?? 0),
});

/**
 * Earnings from the conversion rollups (migration Conversions1764560000000), beside the
 * clicks of the same groups from the click rollups: every statement reads whole UTC days,
 * as the click reads do. The caller chooses the connection.
 */
@Injectable()
export class ConversionRollupReadsRepository {
  constructor(@InjectDataSource() private readonly serving: DataSource) {}

  /**
   * Totals and per-network and per-region figures of the scope (or of one link) over
   * inclusive days. Clicks through no network (passthrough) count in the totals only.
   */
  async earnings(
    source: QuerySource,
    scope: RecordScope,
    days: Required<DayRange>,
    linkId: string | null,
  ): Promise<EarningsGroups> {
    const [clickSource, conversionSource] =
      linkId === null
        ? [
            `click_rollup_region_days_all
              WHERE creator_id = $1 AND environment = $2 AND ${DAYS_OF_PERIOD}`,
            `(SELECT * FROM conversion_rollup_days
               WHERE creator_id = $1 AND environment = $2 AND ${DAYS_OF_PERIOD}) AS v`,
          ]
        : [
            `click_rollup_links_all
              WHERE link_id = $5 AND creator_id = $1 AND environment = $2
                AND hour >= $3::timestamptz AND hour < $4::timestamptz`,
            `(SELECT * FROM conversion_rollup_links
               WHERE link_id = $5 AND creator_id = $1 AND environment = $2
                 AND hour >= $3::timestamptz AND hour < $4::timestamptz) AS v`,
          ];
    const rows = (await source.query(figuresSql(clickSource, conversionSource), [
      scope.creatorId,
      scope.environment,
      startOfDay(days.from),
      startOfNextDay(days.to),
      ...(linkId === null ? [] : [linkId]),
    ])) as FiguresRow[];
    return {
      totals: figuresOf(rows.find((row) => row.grouping_mask === GRAND_TOTAL)),
      byNetwork: rows
        .filter((row) => row.grouping_mask === PER_NETWORK && row.network_id !== null)
        .map((row) => ({ networkId: row.network_id as string, ...figuresOf(row) })),
      byRegion: rows
        .filter((row) => row.grouping_mask === PER_REGION)
        .map((row) => ({ region: row.region, ...figuresOf(row) })),
    };
  }

  /** The scope's standing conversions of the period that no click of the scope is behind. */
  async unattributedConversions(
    source: QuerySource,
    scope: RecordScope,
    days: Required<DayRange>,
  ): Promise<number> {
    const [row] = (await source.query(
      `SELECT coalesce(sum(conversions), 0)::int AS conversions
         FROM conversion_rollup_links
        WHERE creator_id = $1 AND environment = $2 AND link_id IS NULL
          AND hour >= $3::timestamptz AND hour < $4::timestamptz`,
      [scope.creatorId, scope.environment, startOfDay(days.from), startOfNextDay(days.to)],
    )) as { conversions: number }[];
    return row.conversions;
  }

  /**
   * Conversions or commission per UTC bucket (and group) over inclusive days: the daily
   * creator rollup for daily series without a link or a country or device grouping, else
   * the link rollup by hour. At most `maxKeys` group keys, as for clicks.
   */
  async perBucket(
    source: QuerySource,
    scope: RecordScope,
    series: {
      metric: ConversionMetric;
      interval: TimeseriesInterval;
      days: Required<DayRange>;
      linkId: string | null;
      groupBy: TimeseriesGroup;
      maxKeys: number;
    },
  ): Promise<BucketCount[]> {
    const groupColumn = GROUP_COLUMNS[series.groupBy];
    if (groupColumn === undefined) throw new Error(`No conversion grouping ${series.groupBy}`);
    const useDays =
      series.interval === 'day' &&
      series.linkId === null &&
      (groupColumn === null || groupColumn === 'network_id');
    const key = groupColumn === null ? 'NULL::text' : `${groupColumn}::text`;
    const bucket = useDays
      ? `(day::timestamp AT TIME ZONE 'UTC')`
      : `date_trunc('${series.interval}', hour, 'UTC')`;
    const inRange = useDays ? DAYS_OF_PERIOD : 'hour >= $3::timestamptz AND hour < $4::timestamptz';
    const linkFilter = series.linkId === null ? '' : 'AND link_id = $6';
    const rows = (await source.query(
      `SELECT (extract(epoch FROM bucket) * 1000)::float8 AS bucket_ms, key, value
         FROM (SELECT ${bucket} AS bucket, ${key} AS key, ${METRIC_SQL[series.metric]} AS value,
                      dense_rank() OVER (ORDER BY ${key} ASC NULLS LAST) AS key_rank
                 FROM ${useDays ? 'conversion_rollup_days' : 'conversion_rollup_links'}
                WHERE creator_id = $1 AND environment = $2 AND ${inRange} ${linkFilter}
                GROUP BY 1, 2) AS grouped
        WHERE key_rank <= $5`,
      [
        scope.creatorId,
        scope.environment,
        startOfDay(series.days.from),
        startOfNextDay(series.days.to),
        series.maxKeys,
        ...(series.linkId === null ? [] : [series.linkId]),
      ],
    )) as { bucket_ms: number; key: string | null; value: number }[];
    return rows.map((row) => ({
      startMs: Number(row.bucket_ms),
      key: row.key === null ? null : row.key.trim(),
      clicks: Number(row.value),
    }));
  }

  /**
   * A creator's counted clicks and commission per merchant, network and region from
   * `sinceDay` (inclusive, UTC) on: what learned routing blends with the hints. Routes with
   * clicks and no conversions answer commission 0; clicks through no network are left out.
   */
  async realisedEpcByRoute(
    creatorId: string,
    environment: KeyEnvironment,
    merchantIds: readonly string[],
    sinceDay: string,
  ): Promise<RealisedEpcRow[]> {
    if (merchantIds.length === 0) return [];
    const rows = await this.serving.query<
      {
        merchant_id: string;
        network_id: string;
        region: string | null;
        clicks: string;
        conversions: string;
        approved: string;
        pending: string;
      }[]
    >(
      `WITH click_groups AS (
         SELECT merchant_id, network_id, region, sum(clicks)::bigint AS clicks
           FROM click_rollup_merchant_region_days_all
          WHERE creator_id = $1 AND environment = $2
            AND day >= ($4::timestamptz AT TIME ZONE 'UTC')::date
            AND merchant_id = ANY($3::varchar[]) AND network_id IS NOT NULL
          GROUP BY 1, 2, 3),
       conversion_groups AS (
         SELECT merchant_id, network_id, region, sum(conversions)::bigint AS conversions,
                sum(approved_commission_usd) AS approved, sum(pending_commission_usd) AS pending
           FROM conversion_rollup_days
          WHERE creator_id = $1 AND environment = $2 AND day >= ($4::timestamptz AT TIME ZONE 'UTC')::date
            AND merchant_id = ANY($3::varchar[])
          GROUP BY 1, 2, 3)
       SELECT coalesce(c.merchant_id, v.merchant_id) AS merchant_id,
              coalesce(c.network_id, v.network_id) AS network_id,
              CASE WHEN c.network_id IS NOT NULL THEN c.region ELSE v.region END AS region,
              coalesce(c.clicks, 0) AS clicks, coalesce(v.conversions, 0) AS conversions,
              round(coalesce(v.approved, 0), 6) AS approved,
              round(coalesce(v.pending, 0), 6) AS pending
         FROM click_groups AS c
         FULL JOIN conversion_groups AS v
           ON c.merchant_id = v.merchant_id AND c.network_id = v.network_id
          AND coalesce(c.region, '') = coalesce(v.region, '')
        ORDER BY 1, 2, 3 NULLS LAST`,
      [creatorId, environment, [...merchantIds], startOfDay(sinceDay)],
    );
    return rows.map((row) => {
      const approvedCommissionUsd = Number(row.approved);
      const pendingCommissionUsd = Number(row.pending);
      return {
        merchantId: row.merchant_id,
        networkId: row.network_id,
        region: row.region,
        clicks: Number(row.clicks),
        conversions: Number(row.conversions),
        commissionUsd: Math.round((approvedCommissionUsd + pendingCommissionUsd) * 1e6) / 1e6,
        approvedCommissionUsd,
        pendingCommissionUsd,
      };
    });
  }
}
