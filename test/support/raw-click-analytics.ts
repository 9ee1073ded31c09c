import type { DataSource } from 'typeorm';
import type { RecordScope } from '../../src/common/access/auth-context';

// The analytics reads as raw scans of `clicks`, exactly as they were answered before the
// rollups: the oracle the rollup reads are compared with, field for field.

/** Inclusive UTC days as the half-open instants the raw scans filtered by. */
function instantsOf(from: string, to: string): [string, string] {
  const end = new Date(Date.parse(`${to}T00:00:00.000Z`) + 86_400_000).toISOString();
  return [`${from}T00:00:00.000Z`, end];
}

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

interface AggregateRow {
  grouping_mask: number;
  merchant_id: string | null;
  network_id: string | null;
  preset: string | null;
  clicks: number;
  routed: number;
  passthrough: number;
  fallback: number;
  average_confidence: string;
  average_epc_usd: string;
}

/** The summary's click fields (totals, averages and the three breakdowns) by a raw scan. */
export async function rawSummaryOf(
  source: DataSource,
  scope: RecordScope,
  from: string,
  to: string,
): Promise<Record<string, unknown>> {
  const rows: AggregateRow[] = await source.query(AGGREGATE_SQL, [
    scope.creatorId,
    scope.environment,
    ...instantsOf(from, to),
  ]);
  const total = rows.find((row) => row.grouping_mask === 0b111);
  const groups = (mask: number) => rows.filter((row) => row.grouping_mask === mask);
  return {
    totalClicks: total?.clicks ?? 0,
    routedClicks: total?.routed ?? 0,
    passthroughClicks: total?.passthrough ?? 0,
    fallbackClicks: total?.fallback ?? 0,
    averageConfidence: Number(total?.average_confidence ?? 0),
    averageNormalizedEpcUsd: Number(total?.average_epc_usd ?? 0),
    byMerchant: groups(0b011).map((row) => ({
      merchantId: row.merchant_id,
      clicks: row.clicks,
      averageEpcUsd: Number(row.average_epc_usd),
    })),
    byNetwork: groups(0b101)
      .filter((row) => row.network_id !== null)
      .map((row) => ({
        networkId: row.network_id,
        clicks: row.clicks,
        averageEpcUsd: Number(row.average_epc_usd),
      })),
    byPreset: groups(0b110).map((row) => ({ preset: row.preset, clicks: row.clicks })),
  };
}

const GROUP_COLUMNS: Record<string, string | null> = {
  none: null,
  country: 'visitor_country',
  device: 'device_class',
  network: 'network_id',
  outcome: 'outcome',
  source: 'source',
};

/** Clicks per UTC bucket and group key by a raw scan: `key|startIso` -> clicks. */
export async function rawBucketCountsOf(
  source: DataSource,
  scope: RecordScope,
  query: { interval: 'hour' | 'day'; from: string; to: string; groupBy: string; linkId?: string },
): Promise<Map<string, number>> {
  const column = GROUP_COLUMNS[query.groupBy];
  const key = column === null ? 'NULL::text' : `${column}::text`;
  const rows: { bucket: Date; key: string | null; clicks: number }[] = await source.query(
    `SELECT date_trunc('${query.interval}', clicked_at, 'UTC') AS bucket, ${key} AS key,
            count(*)::int AS clicks
       FROM clicks
      WHERE creator_id = $1 AND environment = $2 AND clicked_at >= $3 AND clicked_at < $4
        AND ($5::varchar IS NULL OR link_id = $5)
      GROUP BY 1, 2`,
    [scope.creatorId, scope.environment, ...instantsOf(query.from, query.to), query.linkId ?? null],
  );
  return new Map(
    rows.map((row) => [
      `${row.key === null ? '' : row.key.trim()}|${new Date(row.bucket).toISOString()}`,
      row.clicks,
    ]),
  );
}

/** The clicks list's filters, days inclusive. */
export interface RawClickFilter {
  linkId?: string;
  merchantId?: string;
  networkId?: string;
  outcome?: string;
  preset?: string;
  from?: string;
  to?: string;
}

/** How many of the scope's clicks match the filter, by a raw count. */
export async function rawClickCountOf(
  source: DataSource,
  scope: RecordScope,
  filter: RawClickFilter,
): Promise<number> {
  const conditions = ['creator_id = $1', 'environment = $2'];
  const parameters: unknown[] = [scope.creatorId, scope.environment];
  const add = (sql: string, value: unknown) => {
    parameters.push(value);
    conditions.push(sql.replace('?', `$${parameters.length}`));
  };
  if (filter.linkId !== undefined) add('link_id = ?', filter.linkId);
  if (filter.merchantId !== undefined) add('merchant_id = ?', filter.merchantId);
  if (filter.networkId !== undefined) add('network_id = ?', filter.networkId);
  if (filter.outcome !== undefined) add('outcome = ?', filter.outcome);
  if (filter.preset !== undefined) add('preset = ?', filter.preset);
  if (filter.from !== undefined) add('clicked_at >= ?', `${filter.from}T00:00:00.000Z`);
  if (filter.to !== undefined) add('clicked_at < ?', instantsOf(filter.to, filter.to)[1]);
  const rows: { clicks: number }[] = await source.query(
    `SELECT count(*)::int AS clicks FROM clicks WHERE ${conditions.join(' AND ')}`,
    parameters,
  );
  return rows[0]?.clicks ?? 0;
}
