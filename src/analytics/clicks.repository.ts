import type { TimeseriesGroup } from './dto/timeseries.query';
import type { BucketCount, TimeseriesInterval } from './time-buckets';
import type { RecordScope } from '../common/access/auth-context';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository, SelectQueryBuilder } from 'typeorm';
import type { NetworkId } from '../networks/network-ids';
import type { RoutingOutcome, RoutingPresetId } from '../routing/engine/routing-types';
import type { InstantRange } from './analytics-dates';
import { AnalyticsDatabase } from './analytics-database';
import { ClickEntity } from './click.entity';

/** What the click list may be narrowed by; instants come from inclusive days. */
export interface ClickFilter extends InstantRange {
  linkId?: string;
  merchantId?: string;
  networkId?: NetworkId;
  outcome?: RoutingOutcome;
  preset?: RoutingPresetId;
}

export interface ClickTotals {
  totalClicks: number;
  routedClicks: number;
  passthroughClicks: number;
  fallbackClicks: number;
  averageConfidence: number;
  averageNormalizedEpcUsd: number;
}

export interface ClickGroup<Key> {
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

// One scan for the totals and the three breakdowns. The grand-total set `()` yields a row
// even over no clicks (count 0, averages null -> 0). Averages are rounded to the column scales.
const AGGREGATE_SQL = `
  SELECT GROUPING(merchant_id, network_id, preset)::int AS grouping_mask,
         merchant_id, network_id, preset,
         count(*)::int AS clicks,
         (count(*) FILTER (WHERE outcome = 'routed'))::int AS routed,
         (count(*) FILTER (WHERE outcome = 'passthrough'))::int AS passthrough,
         (count(*) FILTER (WHERE outcome = 'fallback'))::int AS fallback,
         coalesce(round(avg(confidence), 4), 0) AS average_confidence,
         coalesce(round(avg(normalized_epc_usd), 6), 0) AS average_epc_usd
    FROM clicks
   WHERE creator_id = $1 AND environment = $2 AND clicked_at >= $3 AND clicked_at < $4
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
};

/**
 * The clicks table: reads through AnalyticsDatabase (their own pool and slots, never the
 * serving pool's connections), the sandbox purge through the serving pool.
 */
@Injectable()
export class ClicksRepository {
  constructor(
    @InjectRepository(ClickEntity) private readonly clicks: Repository<ClickEntity>,
    private readonly reads: AnalyticsDatabase,
  ) {}

  /**
   * A page of this creator's clicks, newest first (clicked_at, then record id, both
   * descending: the order of clicks_creator_clicked_idx). A page past the end costs no scan.
   */
  listPageInScope(
    scope: RecordScope,
    filter: ClickFilter,
    page: number,
    limit: number,
  ): Promise<{ clicks: ClickEntity[]; total: number }> {
    return this.reads.read(async (source) => {
      const total = await filteredInScope(source, scope, filter).getCount();
      const offset = (page - 1) * limit;
      if (offset >= total) return { clicks: [], total };
      const clicks = await filteredInScope(source, scope, filter)
        .orderBy('click.clicked_at', 'DESC')
        .addOrderBy('click.record_id', 'DESC')
        .offset(offset)
        .limit(limit)
        .getMany();
      return { clicks, total };
    });
  }

  /** Aggregates of the scope's clicks with `fromInclusive <= clicked_at < toExclusive`. */
  async aggregateInScope(
    scope: RecordScope,
    range: Required<InstantRange>,
  ): Promise<ClickAggregates> {
    const rows: AggregateRow[] = await this.reads.read((source) =>
      source.query(AGGREGATE_SQL, [
        scope.creatorId,
        scope.environment,
        range.fromInclusive,
        range.toExclusive,
      ]),
    );
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
   * Clicks per UTC bucket (and group) of the scope in a range: one statement on the
   * creator-environment-time index. `groupColumn` is one of GROUP_COLUMNS, never user text.
   *
   * Only the first `maxKeys` group keys (ascending, null last) are answered: how many groups
   * have clicks is known only once they are counted, and a bound fixed beforehand is useless
   * for countries (whatever two letters the edge header said: with every country there is,
   * any range over 40 days by day would be refused). Asked for one more key than fits, the
   * caller learns that the answer would not fit, and Node never receives more rows than that.
   */
  async countPerBucket(
    scope: RecordScope,
    interval: TimeseriesInterval,
    range: Required<InstantRange>,
    linkId: string | null,
    groupBy: TimeseriesGroup,
    maxKeys: number,
  ): Promise<BucketCount[]> {
    const groupColumn = GROUP_COLUMNS[groupBy];
    const key = groupColumn === null ? 'NULL::text' : `${groupColumn}::text`;
    const rows: { bucket: Date; key: string | null; clicks: number }[] = await this.reads.read(
      (source) =>
        source.query(
          `SELECT bucket, key, clicks
             FROM (SELECT date_trunc('${interval}', clicked_at, 'UTC') AS bucket,
                          ${key} AS key,
                          count(*)::int AS clicks,
                          dense_rank() OVER (ORDER BY ${key} ASC NULLS LAST) AS key_rank
                     FROM clicks
                    WHERE creator_id = $1 AND environment = $2
                      AND clicked_at >= $3 AND clicked_at < $4
                      AND ($5::varchar IS NULL OR link_id = $5)
                    GROUP BY 1, 2) AS grouped
            WHERE key_rank <= $6`,
          [
            scope.creatorId,
            scope.environment,
            range.fromInclusive,
            range.toExclusive,
            linkId,
            maxKeys,
          ],
        ),
    );
    return rows.map((row) => ({
      startMs: new Date(row.bucket).getTime(),
      key: row.key === null ? null : row.key.trim(),
      clicks: row.clicks,
    }));
  }

  /** Counted clicks of one link of the scope in a range. */
  countForLink(scope: RecordScope, linkId: string, range: Required<InstantRange>): Promise<number> {
    return this.reads.read((source) =>
      filteredInScope(source, scope, { linkId, ...range }).getCount(),
    );
  }

  /**
   * Removes every click of a test scope (the sandbox reset) and answers how many there were.
   * Refuses a live scope: live clicks are the bill's record.
   */
  async purgeTestScope(scope: RecordScope): Promise<number> {
    if (scope.environment !== 'test') throw new Error('Only test clicks can be purged');
    const result = await this.clicks
      .createQueryBuilder()
      .delete()
      .where(`creator_id = :creatorId AND environment = 'test'`, { creatorId: scope.creatorId })
      .execute();
    return result.affected ?? 0;
  }
}

/** Scoped by creator and environment, always (the sandbox never mixes with live data). */
function filteredInScope(
  source: DataSource,
  scope: RecordScope,
  filter: ClickFilter,
): SelectQueryBuilder<ClickEntity> {
  const builder = source
    .getRepository(ClickEntity)
    .createQueryBuilder('click')
    .where('click.creator_id = :creatorId AND click.environment = :environment', {
      creatorId: scope.creatorId,
      environment: scope.environment,
    });
  if (filter.linkId !== undefined) {
    builder.andWhere('click.link_id = :linkId', { linkId: filter.linkId });
  }
  if (filter.merchantId !== undefined) {
    builder.andWhere('click.merchant_id = :merchantId', { merchantId: filter.merchantId });
  }
  if (filter.networkId !== undefined) {
    builder.andWhere('click.network_id = :networkId', { networkId: filter.networkId });
  }
  if (filter.outcome !== undefined) {
    builder.andWhere('click.outcome = :outcome', { outcome: filter.outcome });
  }
  if (filter.preset !== undefined) {
    builder.andWhere('click.preset = :preset', { preset: filter.preset });
  }
  if (filter.fromInclusive !== undefined) {
    builder.andWhere('click.clicked_at >= :fromInclusive', {
      fromInclusive: filter.fromInclusive,
    });
  }
  if (filter.toExclusive !== undefined) {
    builder.andWhere('click.clicked_at < :toExclusive', { toExclusive: filter.toExclusive });
  }
  return builder;
}
