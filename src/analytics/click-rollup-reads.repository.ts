import type { KeyEnvironment, RecordScope } from '../common/access/auth-context';
import type { TimeseriesGroup } from './dto/timeseries.query';
import type { BucketCount, TimeseriesInterval } from './time-buckets';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { NetworkId } from '../networks/network-ids';
import type { RoutingOutcome, RoutingPresetId } from '../routing/engine/routing-types';
import { startOfDay, startOfNextDay } from './analytics-dates';

/** Whatever runs a statement: an analytics slot's source, or the serving pool. */
export interface QuerySource {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** Inclusive whole UTC days (`YYYY-MM-DD`); either end may be open where the read allows. */
export interface DayRange {
  from?: string;
  to?: string;
}

/** What the click list's total may be narrowed by. */
export interface RollupClickFilter extends DayRange {
  linkId?: string;
  merchantId?: string;
  networkId?: NetworkId;
  outcome?: RoutingOutcome;
  preset?: RoutingPresetId;
}

interface ClickTotals {
  totalClicks: number;
  routedClicks: number;
  passthroughClicks: number;
  fallbackClicks: number;
  averageConfidence: number;
  averageNormalizedEpcUsd: number;
}

interface ClickGroup<Key> {
  key: Key;
  clicks: number;
  averageEpcUsd: number;
}

/** Totals and per-merchant, per-network and per-preset groups, each most clicks first. */
export interface ClickAggregates {
  totals: ClickTotals;
  byMerchant: ClickGroup<string | null>[];
  /** Clicks that went through a network: passthrough clicks use none and are left out. */
  byNetwork: ClickGroup<NetworkId>[];
  byPreset: ClickGroup<RoutingPresetId>[];
}

/**
 * The rollup a time series is counted from (docs/analytics.md): the link rollup for one
 * link, else the narrowest creator rollup holding the grouping at the interval.
 */
export type SeriesRollup =
  'links' | 'region_days' | 'route_hours' | 'country_hours' | 'device_hours';

/** The rollup a click total is counted from (the caller's choice, as for a series). */
export type TotalRollup = 'links' | 'route_days' | 'region_days';

interface AggregateRow {
  grouping_mask: number;
  merchant_id: string | null;
  network_id: NetworkId | null;
  preset: RoutingPresetId | null;
  clicks: number;
  routed: number;
  passthrough: number;
  fallback: number;
  average_confidence: string;
  average_epc_usd: string;
}

// GROUPING(merchant_id, network_id, preset) is a bit mask of the columns a row is NOT grouped
// by: 0b011 = per merchant, 0b101 = per network, 0b110 = per preset, 0b111 = the grand total.
const GROUPED_BY_MERCHANT = 0b011;
const GROUPED_BY_NETWORK = 0b101;
const GROUPED_BY_PRESET = 0b110;
const GRAND_TOTAL = 0b111;

// The totals and the three breakdowns from the route days. The grand-total set `()` yields a
// row even over no rows (clicks 0, averages null -> 0). PostgreSQL's numeric avg() is the
// numeric sum divided by the count, so dividing the exact sums by the summed clicks and
// rounding to the column scales gives the very value a raw scan's round(avg(...)) gives.
const AGGREGATE_SQL = `
  SELECT GROUPING(merchant_id, network_id, preset)::int AS grouping_mask,
         merchant_id, network_id, preset,
         sum(clicks)::int AS clicks,
         coalesce(sum(clicks) FILTER (WHERE outcome = 'routed'), 0)::int AS routed,
         coalesce(sum(clicks) FILTER (WHERE outcome = 'passthrough'), 0)::int AS passthrough,
         coalesce(sum(clicks) FILTER (WHERE outcome = 'fallback'), 0)::int AS fallback,
         coalesce(round(sum(confidence_sum) / nullif(sum(clicks), 0), 4), 0) AS average_confidence,
         coalesce(round(sum(epc_sum) / nullif(sum(clicks), 0), 6), 0) AS average_epc_usd
    FROM click_rollup_route_days_all
   WHERE creator_id = $1 AND environment = $2 AND day >= $3::date AND day <= $4::date
   GROUP BY GROUPING SETS ((), (merchant_id), (network_id), (preset))
   ORDER BY grouping_mask, clicks DESC,
            merchant_id ASC NULLS LAST, network_id ASC NULLS LAST, preset ASC`;

/** The column each time-series grouping counts by (fixed SQL, never from the request). */
const GROUP_COLUMNS: Record<TimeseriesGroup, string | null> = {
  none: null,
  country: 'visitor_country',
  device: 'device_class',
  network: 'network_id',
  outcome: 'outcome',
  source: 'source',
};

/** Each series rollup: its table and its bucket column as a timestamptz. */
const SERIES_TABLES: Record<SeriesRollup, { table: string; isDaily: boolean }> = {
  links: { table: 'click_rollup_links_all', isDaily: false },
  region_days: { table: 'click_rollup_region_days_all', isDaily: true },
  route_hours: { table: 'click_rollup_route_hours_all', isDaily: false },
  country_hours: { table: 'click_rollup_country_hours_all', isDaily: false },
  device_hours: { table: 'click_rollup_device_hours_all', isDaily: false },
};

const TOTAL_TABLES: Record<TotalRollup, string> = {
  links: 'click_rollup_links_all',
  route_days: 'click_rollup_route_days_all',
  region_days: 'click_rollup_region_days_all',
};

/**
 * Analytics answers from the click rollups (migration ClickRollups1764450000000): every read
 * of the API maps onto whole hour or day buckets, as its ranges are whole UTC days. The
 * creator rollups are read through their `*_all` views (migration
 * ClickRollupWatermark1764520000000): their settled hours, and the link rollup's rows and
 * deltas (ClickRollupLinkDeltas1764620000000) of the hours after the watermark; the link
 * rollup through `click_rollup_links_all`, its rows and deltas. Every statement sums rows per
 * group, so the parts add up. The
 * caller chooses the rollup and the connection (an analytics slot, or the serving pool), so
 * this holds only statements.
 */
@Injectable()
export class ClickRollupReadsRepository {
  constructor(@InjectDataSource() private readonly serving: DataSource) {}

  /** Totals and breakdowns of the scope's clicks over inclusive days, from the route days. */
  async aggregate(
    source: QuerySource,
    scope: RecordScope,
    days: Required<DayRange>,
  ): Promise<ClickAggregates> {
    const rows = (await source.query(AGGREGATE_SQL, [
      scope.creatorId,
      scope.environment,
      days.from,
      days.to,
    ])) as AggregateRow[];
    const grandTotal = rows.find((row) => row.grouping_mask === GRAND_TOTAL);
    const groupsOf = <Key>(grouping: number, keyOf: (row: AggregateRow) => Key) =>
      rows
        .filter((row) => row.grouping_mask === grouping)
        .map((row) => ({
          key: keyOf(row),
          clicks: row.clicks,
          averageEpcUsd: Number(row.average_epc_usd),
        }));
    return {
      totals: {
        totalClicks: grandTotal?.clicks ?? 0,
        routedClicks: grandTotal?.routed ?? 0,
        passthroughClicks: grandTotal?.passthrough ?? 0,
        fallbackClicks: grandTotal?.fallback ?? 0,
        averageConfidence: Number(grandTotal?.average_confidence ?? 0),
        averageNormalizedEpcUsd: Number(grandTotal?.average_epc_usd ?? 0),
      },
      byMerchant: groupsOf(GROUPED_BY_MERCHANT, (row) => row.merchant_id),
      byNetwork: groupsOf(GROUPED_BY_NETWORK, (row) => row.network_id).filter(
        (group): group is ClickGroup<NetworkId> => group.key !== null,
      ),
      // preset is NOT NULL, so a per-preset row always names one.
      byPreset: groupsOf(GROUPED_BY_PRESET, (row) => row.preset as RoutingPresetId),
    };
  }

  /**
   * Clicks per UTC bucket (and group) of the scope over inclusive days, from `rollup` (which
   * must hold the grouping, and hold it by hour for hourly buckets; daily buckets add up the
   * hours). `linkId` narrows the link rollup only.
   *
   * Only the first `maxKeys` group keys (ascending, null last) are answered: asked for one
   * more key than fits, the caller learns that the answer would not fit, and Node never
   * receives more rows than that.
   */
  async countPerBucket(
    source: QuerySource,
    scope: RecordScope,
    series: {
      rollup: SeriesRollup;
      interval: TimeseriesInterval;
      days: Required<DayRange>;
      linkId: string | null;
      groupBy: TimeseriesGroup;
      maxKeys: number;
    },
  ): Promise<BucketCount[]> {
    const { table, isDaily } = SERIES_TABLES[series.rollup];
    if (isDaily && series.interval !== 'day') throw new Error(`${table} has no hours`);
    const groupColumn = GROUP_COLUMNS[series.groupBy];
    const key = groupColumn === null ? 'NULL::text' : `${groupColumn}::text`;
    const bucket = isDaily
      ? `(day::timestamp AT TIME ZONE 'UTC')`
      : `date_trunc('${series.interval}', hour, 'UTC')`;
    const inRange = isDaily
      ? 'day >= $3::date AND day <= $4::date'
      : 'hour >= $3::timestamptz AND hour < $4::timestamptz';
    const range = isDaily
      ? [series.days.from, series.days.to]
      : [startOfDay(series.days.from), startOfNextDay(series.days.to)];
    const linkFilter = series.linkId === null ? '' : 'AND link_id = $6';
    // The bucket as epoch milliseconds (a float8, which the driver hands over as a number):
    // parsing a timestamp into a Date per row costs the serving process more than the rest.
    const rows = (await source.query(
      `SELECT (extract(epoch FROM bucket) * 1000)::float8 AS bucket_ms, key, clicks
         FROM (SELECT ${bucket} AS bucket,
                      ${key} AS key,
                      sum(clicks)::int AS clicks,
                      dense_rank() OVER (ORDER BY ${key} ASC NULLS LAST) AS key_rank
                 FROM ${table}
                WHERE creator_id = $1 AND environment = $2 AND ${inRange} ${linkFilter}
                GROUP BY 1, 2) AS grouped
        WHERE key_rank <= $5`,
      [
        scope.creatorId,
        scope.environment,
        ...range,
        series.maxKeys,
        ...(series.linkId === null ? [] : [series.linkId]),
      ],
    )) as { bucket_ms: number; key: string | null; clicks: number }[];
    return rows.map((row) => ({
      startMs: Number(row.bucket_ms),
      key: row.key === null ? null : row.key.trim(),
      clicks: row.clicks,
    }));
  }

  /**
   * The scope's clicks matching the click list's filter, from `rollup` (which must hold the
   * filter's columns: the link rollup every one, the route days all but the link, the region
   * days only the network).
   */
  async countClicks(
    source: QuerySource,
    scope: RecordScope,
    rollup: TotalRollup,
    filter: RollupClickFilter,
  ): Promise<number> {
    const conditions = ['creator_id = $1', 'environment = $2'];
    const parameters: unknown[] = [scope.creatorId, scope.environment];
    const where = (condition: (placeholder: string) => string, value: unknown): void => {
      parameters.push(value);
      conditions.push(condition(`$${parameters.length}`));
    };
    const columns = [
      ['link_id', filter.linkId],
      ['merchant_id', filter.merchantId],
      ['network_id', filter.networkId],
      ['outcome', filter.outcome],
      ['preset', filter.preset],
    ] as const;
    for (const [column, value] of columns) {
      if (value !== undefined) where((placeholder) => `${column} = ${placeholder}`, value);
    }
    if (rollup === 'links') {
      if (filter.from !== undefined) {
        where((placeholder) => `hour >= ${placeholder}::timestamptz`, startOfDay(filter.from));
      }
      if (filter.to !== undefined) {
        where((placeholder) => `hour < ${placeholder}::timestamptz`, startOfNextDay(filter.to));
      }
    } else {
      if (filter.from !== undefined)
        where((placeholder) => `day >= ${placeholder}::date`, filter.from);
      if (filter.to !== undefined) where((placeholder) => `day <= ${placeholder}::date`, filter.to);
    }
    const rows = (await source.query(
      `SELECT coalesce(sum(clicks), 0)::bigint AS clicks FROM ${TOTAL_TABLES[rollup]}
        WHERE ${conditions.join(' AND ')}`,
      parameters,
    )) as { clicks: string | number }[];
    return Number(rows[0]?.clicks ?? 0);
  }

  /**
   * Clicks of a creator's environment on and after a UTC day, from the region days (the
   * narrowest creator rollup); on the serving pool, as the quota it seeds is on the request
   * path.
   */
  async countSince(
    creatorId: string,
    environment: KeyEnvironment,
    fromDay: string,
  ): Promise<number> {
    const rows = await this.serving.query<{ clicks: string | number }[]>(
      `SELECT coalesce(sum(clicks), 0)::bigint AS clicks FROM click_rollup_region_days_all
        WHERE creator_id = $1 AND environment = $2 AND day >= $3::date`,
      [creatorId, environment, fromDay],
    );
    return Number(rows[0]?.clicks ?? 0);
  }

  /** All the clicks of one link, from the link rollup; on the serving pool, like countSince. */
  async countOfLink(
    creatorId: string,
    environment: KeyEnvironment,
    linkId: string,
  ): Promise<number> {
    const rows = await this.serving.query<{ clicks: string | number }[]>(
      `SELECT coalesce(sum(clicks), 0)::bigint AS clicks FROM click_rollup_links_all
        WHERE creator_id = $1 AND environment = $2 AND link_id = $3`,
      [creatorId, environment, linkId],
    );
    return Number(rows[0]?.clicks ?? 0);
  }
}
