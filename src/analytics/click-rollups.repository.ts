import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { KEY_ENVIRONMENTS } from '../common/access/auth-context';
import { isStatementTimeout } from '../common/errors/database-unavailable';

/**
 * The rollup tables of migrations ClickRollups1764450000000,
 * ClickRollupAudienceSplit1764550000000 and ClickRollupRegionDays1764600000000 (keyed by the
 * click's source too since ClickSources1764730000000), in the order
 * every writer locks them (its triggers keep them; this repository rebuilds them). `bucket` is the key column
 * holding the UTC hour (timestamptz) or day (date).
 */
const LINKS = {
  name: 'links',
  table: 'click_rollup_links',
  bucket: 'hour',
  key: [
    'creator_id',
    'environment',
    'link_id',
    'hour',
    'merchant_id',
    'network_id',
    'preset',
    'outcome',
    'region',
    'visitor_country',
    'device_class',
    'source',
  ],
  sums: ['confidence_sum', 'epc_sum'],
} as const;

/** The creator rollups: projections of the link rollup, which holds every dimension. */
const CREATOR_ROLLUPS = [
  {
    name: 'route_days',
    table: 'click_rollup_route_days',
    /** Its settled hours and the link rollup's after the watermark: what reads count. */
    view: 'click_rollup_route_days_all',
    bucket: 'day',
    key: ['creator_id', 'environment', 'day', 'merchant_id', 'network_id', 'preset', 'outcome'],
    sums: ['confidence_sum', 'epc_sum'],
  },
  {
    name: 'route_hours',
    table: 'click_rollup_route_hours',
    view: 'click_rollup_route_hours_all',
    bucket: 'hour',
    key: ['creator_id', 'environment', 'hour', 'network_id', 'outcome'],
    sums: [],
  },
  {
    name: 'country_hours',
    table: 'click_rollup_country_hours',
    view: 'click_rollup_country_hours_all',
    bucket: 'hour',
    key: ['creator_id', 'environment', 'hour', 'visitor_country'],
    sums: [],
  },
  {
    name: 'device_hours',
    table: 'click_rollup_device_hours',
    view: 'click_rollup_device_hours_all',
    bucket: 'hour',
    key: ['creator_id', 'environment', 'hour', 'device_class', 'source'],
    sums: [],
  },
  {
    name: 'region_days',
    table: 'click_rollup_region_days',
    view: 'click_rollup_region_days_all',
    bucket: 'day',
    key: ['creator_id', 'environment', 'day', 'network_id', 'region'],
    sums: [],
  },
  {
    name: 'merchant_region_days',
    table: 'click_rollup_merchant_region_days',
    view: 'click_rollup_merchant_region_days_all',
    bucket: 'day',
    key: ['creator_id', 'environment', 'day', 'merchant_id', 'network_id', 'region'],
    sums: [],
  },
] as const;

/**
 * What click writers append instead of upserting the link rollup (migration
 * ClickRollupLinkDeltas1764620000000), folded into it by `compactLinkDeltas`, and the view of
 * both that reads of the link rollup add up.
 */
const LINK_DELTAS = 'click_rollup_link_deltas';
const LINKS_ALL = 'click_rollup_links_all';
const COMPACT_SQL = `SELECT click_rollup_link_deltas_compact($1) AS moved`;
/** Deltas folded per statement: a backlog's statements each end well within the timeout. */
const COMPACT_BATCH_ROWS = 20_000;
/**
 * The smallest batch a compaction falls back to when a statement runs past the serving
 * statement timeout (a bulk load beside it, a slow disk): smaller statements still move the
 * backlog on, where a fixed size would fail at every interval and let the deltas pile up.
 */
const MIN_COMPACT_BATCH_ROWS = 625;

type Query = (sql: string, parameters: unknown[]) => Promise<unknown>;

/** Awaited between the statements of a compaction, given how long the last one took. */
export type RestAfterStatement = (busyMs: number) => Promise<void>;

/**
 * Folds every delta, a bounded statement at a time; answers the deltas moved. With
 * `halveOnTimeout` (outside a transaction, which a timed-out statement would abort), a
 * statement cancelled at the statement timeout is asked again for half as many deltas.
 * `restAfter`, given how long a statement took, is awaited before the next one.
 */
async function compactAll(
  query: Query,
  {
    halveOnTimeout = false,
    restAfter,
  }: { halveOnTimeout?: boolean; restAfter?: RestAfterStatement } = {},
): Promise<number> {
  let moved = 0;
  let batchRows = COMPACT_BATCH_ROWS;
  for (;;) {
    let row: { moved: number };
    const startedAt = performance.now();
    try {
      [row] = (await query(COMPACT_SQL, [batchRows])) as { moved: number }[];
    } catch (error) {
      if (!halveOnTimeout || !isStatementTimeout(error) || batchRows <= MIN_COMPACT_BATCH_ROWS) {
        throw error;
      }
      batchRows /= 2;
      continue;
    }
    moved += row.moved;
    if (row.moved < batchRows) return moved;
    await restAfter?.(performance.now() - startedAt);
  }
}

type Rollup = typeof LINKS | (typeof CREATOR_ROLLUPS)[number];

/** Every rollup, in lock order. */
const ROLLUPS = [LINKS, ...CREATOR_ROLLUPS] as const;

export type RollupName = Rollup['name'];
export const ROLLUP_NAMES: readonly RollupName[] = ROLLUPS.map((rollup) => rollup.name);

const rollupNamed = (name: RollupName): Rollup =>
  ROLLUPS.find((rollup) => rollup.name === name) as Rollup;

const ENVIRONMENTS_SQL = KEY_ENVIRONMENTS.map((environment) => `'${environment}'`).join(', ');

/** An instant as a value of the bucket column: for a date column, the UTC day it falls in. */
const asBucket = (bucket: 'hour' | 'day', instant: string): string =>
  bucket === 'day' ? `(${instant}::timestamptz AT TIME ZONE 'UTC')::date` : instant;

/** Rows of a rollup within one creator's `[$2, $3)` (whole hours or days), every environment. */
const inBatchSql = ({ table, bucket }: { table: string; bucket: Rollup['bucket'] }): string =>
  `${table} WHERE creator_id = $1 AND environment IN (${ENVIRONMENTS_SQL})
     AND ${bucket} >= ${asBucket(bucket, '$2')} AND ${bucket} < ${asBucket(bucket, '$3')}`;

/** The start of the first hour whose clicks the creator rollups do not hold yet. */
const WATERMARK_SQL = `SELECT hour FROM click_rollup_watermark`;

const columnsOf = (rollup: Rollup): string[] => [...rollup.key, 'clicks', ...rollup.sums];
const positionsOf = (rollup: Rollup): string => rollup.key.map((_, i) => i + 1).join(', ');

/** The link rollup's rows as the batch's clicks make them. */
const FRESH_LINKS_SQL = `
  SELECT ${LINKS.key.map((column) => (column === 'hour' ? `date_trunc('hour', clicked_at, 'UTC') AS hour` : column)).join(', ')},
         count(*)::int AS clicks, sum(confidence) AS confidence_sum,
         sum(normalized_epc_usd) AS epc_sum
    FROM clicks
   WHERE creator_id = $1 AND environment IN (${ENVIRONMENTS_SQL})
     AND clicked_at >= $2 AND clicked_at < $3
   GROUP BY ${positionsOf(LINKS)}`;

/** A creator rollup's rows as the batch's link rollup rows (`source_links`) make them. */
function freshFromLinksSql(rollup: (typeof CREATOR_ROLLUPS)[number]): string {
  const keys = rollup.key.map((column) =>
    column === 'day' ? `(hour AT TIME ZONE 'UTC')::date AS day` : column,
  );
  const sums = rollup.sums.map((column) => `, sum(${column}) AS ${column}`).join('');
  return `
    SELECT ${keys.join(', ')}, sum(clicks)::int AS clicks${sums}
      FROM source_links
     GROUP BY ${positionsOf(rollup)}`;
}

/**
 * Makes a rollup's rows of the batch equal to `fresh_<name>`, writing only where they differ:
 * `differing` counts the rows of the symmetric difference (EXCEPT treats nulls as equal, as
 * the unique keys do), and at 0 nothing is written, so a second rebuild changes nothing. The
 * deletion precedes the insertion of the same keys: the insertion reads its count.
 */
function replaceSql(rollup: Rollup, freshSql: string): string {
  const { name } = rollup;
  return `
    fresh_${name} AS MATERIALIZED (${freshSql}),
    stored_${name} AS MATERIALIZED (SELECT ${columnsOf(rollup).join(', ')} FROM ${inBatchSql(rollup)}),
    differing_${name} AS (
      SELECT count(*)::int AS count FROM (
        (TABLE fresh_${name} EXCEPT ALL TABLE stored_${name})
        UNION ALL
        (TABLE stored_${name} EXCEPT ALL TABLE fresh_${name})) AS difference),
    removed_${name} AS (
      DELETE FROM ${inBatchSql(rollup)} AND (SELECT count FROM differing_${name}) > 0
      RETURNING 1),
    written_${name} AS (
      INSERT INTO ${rollup.table} (${columnsOf(rollup).join(', ')})
      SELECT * FROM fresh_${name}
       WHERE (SELECT count FROM differing_${name}) > 0
         AND (SELECT count(*) FROM removed_${name}) >= 0
      RETURNING 1)`;
}

/** The batch's rows (as rebuilt) and rows that differed, over the given rollups. */
const countsSql = (rollups: readonly Rollup[]): string => `
  SELECT ${rollups.map(({ name }) => `(SELECT count(*) FROM fresh_${name})`).join(' + ')} AS rows,
         ${rollups.map(({ name }) => `(SELECT count FROM differing_${name})`).join(' + ')} AS differing,
         ${rollups.map(({ name }) => `(SELECT count(*) FROM written_${name})`).join(' + ')} AS written`;

/** The link rollup of `[$2, $3)` (whole hours) from the clicks. */
const REBUILD_LINKS_SQL = `
  WITH ${replaceSql(LINKS, FRESH_LINKS_SQL)}
  ${countsSql([LINKS])}`;

/**
 * The creator rollups of `[$2, $3)` (whole days) from the link rollup's settled hours: those
 * before the watermark (migration ClickRollupWatermark1764520000000); reads take the hours
 * after it from the link rollup itself.
 */
const REBUILD_CREATOR_ROLLUPS_SQL = `
  WITH source_links AS MATERIALIZED (
    SELECT * FROM ${inBatchSql(LINKS)} AND hour < (${WATERMARK_SQL})),
  ${CREATOR_ROLLUPS.map((rollup) => replaceSql(rollup, freshFromLinksSql(rollup))).join(',')}
  ${countsSql(CREATOR_ROLLUPS)}`;

/**
 * Adds the link rollup's rows of the hours `[$1, $2)` to a creator rollup, times `$3` (1 or
 * -1), in key order; a removal then drops the rows it brought to zero clicks.
 */
function shiftSql(rollup: (typeof CREATOR_ROLLUPS)[number]): string {
  const keys = rollup.key.map((column) =>
    column === 'day' ? `(hour AT TIME ZONE 'UTC')::date` : column,
  );
  const values = ['clicks', ...rollup.sums];
  const positions = positionsOf(rollup);
  return `
    INSERT INTO ${rollup.table} AS rollup (${columnsOf(rollup).join(', ')})
    SELECT ${keys.join(', ')}, ${values.map((column) => `$3::int * sum(${column})`).join(', ')}
      FROM click_rollup_links
     WHERE hour >= $1 AND hour < $2
     GROUP BY ${positions}
     ORDER BY ${positions}
    ON CONFLICT (${rollup.key.join(', ')})
    DO UPDATE SET ${values.map((column) => `${column} = rollup.${column} + excluded.${column}`).join(', ')}`;
}

function dropEmptySql(rollup: (typeof CREATOR_ROLLUPS)[number]): string {
  const bucket = rollup.bucket === 'day' ? `(hour AT TIME ZONE 'UTC')::date` : 'hour';
  return `
    DELETE FROM ${rollup.table}
     WHERE clicks = 0
       AND (creator_id, environment, ${rollup.bucket}) IN
           (SELECT DISTINCT creator_id, environment, ${bucket} FROM click_rollup_links
             WHERE hour >= $1 AND hour < $2)`;
}

/** The first hour at or after `$1` with link rollup rows or deltas (index probes). */
const FIRST_LINK_HOUR_SQL = `
  SELECT least((SELECT min(hour) FROM click_rollup_links WHERE hour >= $1),
               (SELECT min(hour) FROM ${LINK_DELTAS} WHERE hour >= $1)) AS hour`;

/**
 * First in a batch's transaction, before the statement that aggregates: a writer's increment
 * (a trigger on clicks, which locks the rollups in table order) either committed before, and
 * the aggregation sees its clicks, or waits for the batch to commit and then adds to it. The
 * link rollup and its deltas come first, as the batch folds the deltas in (COMPACT_SQL)
 * before it reads the link rollup.
 */
const lockSql = (rollups: readonly Rollup[]): string =>
  `LOCK TABLE ${[LINKS.table, LINK_DELTAS, ...rollups.filter((rollup) => rollup !== LINKS).map((rollup) => rollup.table)].join(', ')} IN SHARE ROW EXCLUSIVE MODE`;

/**
 * The starts of the UTC `unit`s (days or hours) in which `column` of `table` has rows of a
 * creator and environment within `[$2, $3)`, newest first: a loose index scan, one probe per
 * unit with rows.
 */
function bucketsWithRowsSql(
  name: string,
  unit: 'day' | 'hour',
  source: { table: string; column: string; environment: string },
): string {
  const { table, column, environment } = source;
  const bucket = column === 'day' ? 'day' : 'hour';
  const latestBefore = (bound: string) => {
    const latest = `(SELECT max(${column}) FROM ${table}
        WHERE creator_id = $1 AND environment = '${environment}'
          AND ${column} >= ${asBucket(bucket, '$2')} AND ${column} < ${asBucket(bucket, bound)})`;
    return column === 'day'
      ? `(${latest}::timestamp AT TIME ZONE 'UTC')`
      : `date_trunc('${unit}', ${latest}, 'UTC')`;
  };
  return `
    ${name}(start) AS (
      SELECT ${latestBefore('$3')}
      UNION ALL
      SELECT ${latestBefore(`${name}.start`)} FROM ${name} WHERE ${name}.start IS NOT NULL)`;
}

/** Units of `[$2, $3)` in which any of the sources has rows of the creator, oldest first. */
function bucketsWithRowsOfSql(
  unit: 'day' | 'hour',
  tables: readonly { table: string; column: string }[],
): string {
  const sources = KEY_ENVIRONMENTS.flatMap((environment) =>
    tables.map((table, i) => ({ ...table, environment, name: `${environment}_${i}` })),
  );
  return `
    WITH RECURSIVE ${sources.map((source) => bucketsWithRowsSql(source.name, unit, source)).join(',')}
    SELECT DISTINCT start FROM (
      ${sources.map((source) => `SELECT start FROM ${source.name}`).join(' UNION ALL ')}
    ) AS buckets
     WHERE start IS NOT NULL
     ORDER BY start`;
}

const CLICK_TIMES = { table: 'clicks', column: 'clicked_at' };

/** Days with clicks or rows of any rollup. */
const DAYS_WITH_ROWS_SQL = bucketsWithRowsOfSql('day', [
  CLICK_TIMES,
  ...[LINKS, ...CREATOR_ROLLUPS].map((rollup) => ({ table: rollup.table, column: rollup.bucket })),
]);

/** Hours with clicks or link rollup rows. */
const HOURS_WITH_ROWS_SQL = bucketsWithRowsOfSql('hour', [
  CLICK_TIMES,
  { table: LINKS.table, column: 'hour' },
]);

/** Creators with clicks, one index probe each (a loose index scan). */
const CREATORS_WITH_CLICKS_SQL = `
  WITH RECURSIVE creators(id) AS (
    SELECT min(creator_id) FROM clicks
    UNION ALL
    SELECT (SELECT min(creator_id) FROM clicks WHERE creator_id > creators.id)
      FROM creators WHERE creators.id IS NOT NULL)
  SELECT id FROM creators WHERE id IS NOT NULL ORDER BY id`;

/** A creator's oldest stored click (an index probe per environment). */
const FIRST_CLICK_SQL = `
  SELECT least(${KEY_ENVIRONMENTS.map(
    (environment) =>
      `(SELECT min(clicked_at) FROM clicks WHERE creator_id = $1 AND environment = '${environment}')`,
  ).join(', ')}) AS first_click_at`;

/**
 * A creator's totals per environment and UTC day within `[$2, $3)` (whole days): of its clicks
 * (`raw`), and of each rollup, which must add up to them (clicks, and the sums it keeps).
 */
const RAW_DAY_TOTALS_SQL = `
  SELECT environment, (clicked_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS clicks,
         sum(confidence) AS confidence_sum, sum(normalized_epc_usd) AS epc_sum
    FROM clicks
   WHERE creator_id = $1 AND environment IN (${ENVIRONMENTS_SQL})
     AND clicked_at >= $2 AND clicked_at < $3
   GROUP BY 1, 2`;

/** A rollup's totals per environment and day, a creator rollup's as reads count them. */
function rollupDayTotalsSql(rollup: Rollup): string {
  const day = rollup.bucket === 'day' ? 'day' : `(hour AT TIME ZONE 'UTC')::date`;
  const sums = rollup.sums.map((column) => `, sum(${column}) AS ${column}`).join('');
  const table = 'view' in rollup ? rollup.view : LINKS_ALL;
  return `
    SELECT environment, ${day} AS day, sum(clicks)::int AS clicks${sums}
      FROM ${inBatchSql({ table, bucket: rollup.bucket })}
     GROUP BY 1, 2`;
}

/**
 * How many environment-days of `[$2, $3)` some rollup of the creator does not add up to its
 * clicks for (rows of the symmetric difference, over the four rollups): 0 when they all do.
 * One snapshot, so a click written meanwhile is in both or in neither.
 */
const DIFFERING_DAY_TOTALS_SQL = `
  WITH raw AS MATERIALIZED (${RAW_DAY_TOTALS_SQL}),
  ${ROLLUPS.map((rollup) => `totals_${rollup.name} AS MATERIALIZED (${rollupDayTotalsSql(rollup)})`).join(',\n  ')}
  SELECT count(*)::int AS differing FROM (
    ${ROLLUPS.map((rollup) => {
      const columns = ['environment', 'day', 'clicks', ...rollup.sums].join(', ');
      const ofRaw = `SELECT ${columns} FROM raw`;
      const ofRollup = `SELECT ${columns} FROM totals_${rollup.name}`;
      return `SELECT environment, day FROM (
        (${ofRaw} EXCEPT ALL ${ofRollup}) UNION ALL (${ofRollup} EXCEPT ALL ${ofRaw})
      ) AS differing_${rollup.name}`;
    }).join('\n    UNION ALL ')}
  ) AS difference`;

/** Up to `$2` creators with rows in the rollup, after `$1`: one index probe each. */
const rollupCreatorsSql = ({ table }: Rollup): string => `
  WITH RECURSIVE creators(id, n) AS (
    SELECT (SELECT min(creator_id) FROM ${table} WHERE creator_id > $1), 1
    UNION ALL
    SELECT (SELECT min(creator_id) FROM ${table} WHERE creator_id > creators.id), n + 1
      FROM creators WHERE creators.id IS NOT NULL AND n < $2)
  SELECT id FROM creators WHERE id IS NOT NULL`;

/** Rows of the creators `$1` before the instant `$2` (on their key's index). */
const olderRowsSql = ({ table, bucket }: Rollup): string =>
  `${table} WHERE creator_id = ANY($1) AND environment IN (${ENVIRONMENTS_SQL})
     AND ${bucket} < ${asBucket(bucket, '$2')}`;

/** One batch of at most `$3` of those rows deleted (no trigger: the rollups are not clicks). */
const deleteOlderRowsSql = (rollup: Rollup): string => `
  WITH deleted AS (
    DELETE FROM ${rollup.table}
     WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${olderRowsSql(rollup)} LIMIT $3))
    RETURNING 1)
  SELECT count(*)::int AS count FROM deleted`;

/** One rebuilt batch: rollup rows as the clicks make them, and how many had differed. */
export interface RollupBatchResult {
  rows: number;
  /** Rows that were missing, extra or wrong before (0: the batch was right and left alone). */
  differingRows: number;
}

/**
 * The hourly and daily rollups of the clicks (docs/analytics.md). Writers keep them through
 * triggers on `clicks`; this repository recomputes them from the clicks for repairs.
 */
@Injectable()
export class ClickRollupsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findCreatorsWithClicks(): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(CREATORS_WITH_CLICKS_SQL);
    return rows.map((row) => row.id);
  }

  async findFirstClickAt(creatorId: string): Promise<Date | null> {
    const rows: { first_click_at: Date | null }[] = await this.dataSource.query(FIRST_CLICK_SQL, [
      creatorId,
    ]);
    return rows[0]?.first_click_at ?? null;
  }

  /** Starts of the UTC days in `[from, to)` with clicks or rollup rows of the creator. */
  findDaysWithRows(creatorId: string, from: Date, to: Date | null): Promise<Date[]> {
    return this.findStarts(DAYS_WITH_ROWS_SQL, creatorId, from, to);
  }

  /** Starts of the UTC hours in `[from, to)` with clicks or link rollup rows of the creator. */
  findHoursWithRows(creatorId: string, from: Date, to: Date): Promise<Date[]> {
    return this.findStarts(HOURS_WITH_ROWS_SQL, creatorId, from, to);
  }

  /** Makes the creator's link rollup rows of `[from, to)` (whole hours) those of its clicks. */
  rebuildLinkRollup(creatorId: string, from: Date, to: Date): Promise<RollupBatchResult> {
    return this.rebuild([LINKS], REBUILD_LINKS_SQL, creatorId, from, to);
  }

  /**
   * Makes the creator's other rollup rows of `[from, to)` (whole days) those of its link
   * rollup, which holds every dimension: rebuild that first.
   */
  rebuildCreatorRollups(creatorId: string, from: Date, to: Date): Promise<RollupBatchResult> {
    return this.rebuild(CREATOR_ROLLUPS, REBUILD_CREATOR_ROLLUPS_SQL, creatorId, from, to);
  }

  /**
   * Environment-days of `[from, to)` (whole UTC days) for which some rollup of the creator
   * does not add up to its clicks: 0 when every rollup's totals are those of the clicks.
   */
  async countDifferingDayTotals(creatorId: string, from: Date, to: Date): Promise<number> {
    const [row]: { differing: number }[] = await this.dataSource.query(DIFFERING_DAY_TOTALS_SQL, [
      creatorId,
      from,
      to,
    ]);
    return row.differing;
  }

  /** Up to `limit` creators with rows in the rollup, in id order after `after` ('' first). */
  async findCreatorsWithRows(rollup: RollupName, after: string, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      rollupCreatorsSql(rollupNamed(rollup)),
      [after, limit],
    );
    return rows.map((row) => row.id);
  }

  /** Rows of the creators older than `before` (a month start): how many a deletion would take. */
  async countRowsBefore(rollup: RollupName, creatorIds: string[], before: Date): Promise<number> {
    const [row]: { count: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM ${olderRowsSql(rollupNamed(rollup))}`,
      [creatorIds, before],
    );
    return row.count;
  }

  /** Deletes at most `limit` rows of the creators older than `before`; answers how many. */
  async deleteRowsBefore(
    rollup: RollupName,
    creatorIds: string[],
    before: Date,
    limit: number,
  ): Promise<number> {
    const [row]: { count: number }[] = await this.dataSource.query(
      deleteOlderRowsSql(rollupNamed(rollup)),
      [creatorIds, before, limit],
    );
    return row.count;
  }

  /** The watermark: the creator rollups hold the clicks of the hours before it. */
  async findWatermark(): Promise<number> {
    const rows: { ms: string }[] = await this.dataSource.query(
      `SELECT extract(epoch FROM hour) * 1000 AS ms FROM click_rollup_watermark`,
    );
    return Number(rows[0].ms);
  }

  /**
   * Folds the deltas click writers appended into the link rollup, in statements of a bounded
   * number of deltas (each one atomic, so every read sees each click once, in the deltas or in
   * the link rollup); answers the deltas moved. A statement past the statement timeout is
   * asked again for half as many (down to MIN_COMPACT_BATCH_ROWS). Compactions run one at a
   * time; each waits for a settling or rebuild batch. `restAfter` spaces the statements of a
   * backlog (ClickRollupCompactor).
   */
  compactLinkDeltas({ restAfter }: { restAfter?: RestAfterStatement } = {}): Promise<number> {
    return compactAll((sql, parameters) => this.dataSource.query(sql, parameters), {
      halveOnTimeout: true,
      restAfter,
    });
  }

  /** The first hour at or after `from` with link rollup rows or deltas, if any. */
  async findFirstLinkHourFrom(from: Date): Promise<Date | null> {
    const rows: { hour: Date | null }[] = await this.dataSource.query(FIRST_LINK_HOUR_SQL, [from]);
    return rows[0]?.hour === null || rows[0] === undefined ? null : new Date(rows[0].hour);
  }

  /**
   * Moves the watermark to `to` (an hour's start), in one transaction: forward, the creator
   * rollups take the link rollup's rows of the hours it passes (its deltas folded in first,
   * under the lock); back (only with `canMoveBack`),
   * they give them up. Writers wait meanwhile (the rollups are locked first, as by the
   * rebuild), so a click is in the creator rollups exactly when its hour is before the
   * watermark. Answers the watermark before, in ms (Infinity when every hour is settled).
   */
  moveWatermark(to: Date, { canMoveBack = false } = {}): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(lockSql([LINKS, ...CREATOR_ROLLUPS]));
      await compactAll((sql, parameters) => manager.query(sql, parameters));
      const [{ ms }]: { ms: string }[] = await manager.query(
        `SELECT extract(epoch FROM hour) * 1000 AS ms FROM click_rollup_watermark`,
      );
      const fromMs = Number(ms);
      if (fromMs === to.getTime() || (fromMs > to.getTime() && !canMoveBack)) return fromMs;
      const isForward = fromMs < to.getTime();
      const from = Number.isFinite(fromMs) ? new Date(fromMs) : 'infinity';
      const range = isForward ? [from, to, 1] : [to, from, -1];
      for (const rollup of CREATOR_ROLLUPS) {
        await manager.query(shiftSql(rollup), range);
        if (!isForward) await manager.query(dropEmptySql(rollup), range.slice(0, 2));
      }
      await manager.query(`UPDATE click_rollup_watermark SET hour = $1`, [to]);
      return fromMs;
    });
  }

  private async findStarts(
    sql: string,
    creatorId: string,
    from: Date,
    to: Date | null,
  ): Promise<Date[]> {
    const rows: { start: Date }[] = await this.dataSource.query(sql, [
      creatorId,
      from,
      to ?? 'infinity',
    ]);
    return rows.map((row) => new Date(row.start));
  }

  /** One batch, in its own transaction: the rollups it rewrites are locked first (lockSql). */
  private rebuild(
    rollups: readonly Rollup[],
    sql: string,
    creatorId: string,
    from: Date,
    to: Date,
  ): Promise<RollupBatchResult> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(lockSql(rollups));
      await compactAll((sql, parameters) => manager.query(sql, parameters));
      const [counts]: { rows: string; differing: string }[] = await manager.query(sql, [
        creatorId,
        from,
        to,
      ]);
      return { rows: Number(counts.rows), differingRows: Number(counts.differing) };
    });
  }
}
