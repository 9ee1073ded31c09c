import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { KEY_ENVIRONMENTS } from '../common/access/auth-context';

/** The UTC hour of a click: the bucket of every rollup row (docs/analytics.md). */
const HOUR_OF_CLICK = `date_trunc('hour', clicked_at, 'UTC')`;

/**
 * The rollup tables of migration ClickRollups1764450000000, in the order every writer locks
 * them (its triggers keep them; this repository rebuilds them). `from` says how a row is
 * aggregated: the link rollup from the clicks, the creator rollups from the link rollup
 * (sums of exact sums, so the same figures as from the clicks, for a fraction of the rows).
 */
const ROLLUPS = [
  {
    name: 'links',
    table: 'click_rollup_links',
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
    ],
    sums: ['confidence_sum', 'epc_sum'],
  },
  {
    name: 'routes',
    table: 'click_rollup_routes',
    key: ['creator_id', 'environment', 'hour', 'merchant_id', 'network_id', 'preset', 'outcome'],
    sums: ['confidence_sum', 'epc_sum'],
  },
  {
    name: 'audiences',
    table: 'click_rollup_audiences',
    key: ['creator_id', 'environment', 'hour', 'visitor_country', 'device_class'],
    sums: [],
  },
] as const;

type Rollup = (typeof ROLLUPS)[number];

const ENVIRONMENTS_SQL = KEY_ENVIRONMENTS.map((environment) => `'${environment}'`).join(', ');

/** Rows of a rollup within one creator's `[$2, $3)` hours, every environment. */
const inBatchSql = (table: string): string =>
  `${table} WHERE creator_id = $1 AND environment IN (${ENVIRONMENTS_SQL}) AND hour >= $2 AND hour < $3`;

const columnsOf = (rollup: Rollup): string[] => [...rollup.key, 'clicks', ...rollup.sums];

/** The rollup's rows as the clicks of the batch make them. */
function freshSql(rollup: Rollup): string {
  const positions = rollup.key.map((_, i) => i + 1).join(', ');
  if (rollup.name === 'links') {
    return `
      SELECT ${rollup.key.map((column) => (column === 'hour' ? `${HOUR_OF_CLICK} AS hour` : column)).join(', ')},
             count(*)::int AS clicks, sum(confidence) AS confidence_sum,
             sum(normalized_epc_usd) AS epc_sum
        FROM clicks
       WHERE creator_id = $1 AND environment IN (${ENVIRONMENTS_SQL})
         AND clicked_at >= $2 AND clicked_at < $3
       GROUP BY ${positions}`;
  }
  const sums = rollup.sums.map((column) => `, sum(${column}) AS ${column}`).join('');
  return `
      SELECT ${rollup.key.join(', ')}, sum(clicks)::int AS clicks${sums}
        FROM fresh_links
       GROUP BY ${positions}`;
}

/**
 * Rebuilds one batch of every rollup from the clicks, and writes a rollup only where it
 * differs: `differing` counts the rows of the symmetric difference (EXCEPT treats nulls as
 * equal, as the unique keys do), and when it is 0 nothing is written, so a second rebuild
 * changes nothing. The deletion must precede the insertion of the same keys: the insertion
 * waits for it through the count it reads.
 */
const REBUILD_BATCH_SQL = `
  WITH ${ROLLUPS.map(
    (rollup) => `
    fresh_${rollup.name} AS MATERIALIZED (${freshSql(rollup)}),
    stored_${rollup.name} AS MATERIALIZED (
      SELECT ${columnsOf(rollup).join(', ')} FROM ${inBatchSql(rollup.table)}),
    differing_${rollup.name} AS (
      SELECT count(*)::int AS count FROM (
        (TABLE fresh_${rollup.name} EXCEPT ALL TABLE stored_${rollup.name})
        UNION ALL
        (TABLE stored_${rollup.name} EXCEPT ALL TABLE fresh_${rollup.name})) AS difference),
    removed_${rollup.name} AS (
      DELETE FROM ${inBatchSql(rollup.table)}
         AND (SELECT count FROM differing_${rollup.name}) > 0
      RETURNING 1),
    written_${rollup.name} AS (
      INSERT INTO ${rollup.table} (${columnsOf(rollup).join(', ')})
      SELECT * FROM fresh_${rollup.name}
       WHERE (SELECT count FROM differing_${rollup.name}) > 0
         AND (SELECT count(*) FROM removed_${rollup.name}) >= 0
      RETURNING 1)`,
  ).join(',')}
  SELECT ${ROLLUPS.map(
    (rollup) => `
    (SELECT count(*) FROM fresh_${rollup.name})::int AS ${rollup.name}_rows,
    (SELECT count FROM differing_${rollup.name}) AS ${rollup.name}_differing,
    (SELECT count(*) FROM written_${rollup.name})::int AS ${rollup.name}_written`,
  ).join(',')}`;

/**
 * Before the aggregation, in the batch's transaction: a writer's increment (a trigger on
 * clicks, which locks these tables in this order) either committed before, and the
 * aggregation sees its clicks, or waits for the batch to commit and then adds to it.
 */
const LOCK_ROLLUPS_SQL = `LOCK TABLE ${ROLLUPS.map((rollup) => rollup.table).join(', ')} IN SHARE ROW EXCLUSIVE MODE`;

/**
 * The UTC days on which `column` of `table` has rows of a creator and environment within
 * `[$2, $3)`, newest first, one index probe per day (a loose index scan).
 */
function daysWithRowsSql(name: string, table: string, column: string, environment: string): string {
  const latestBefore = (bound: string) =>
    `date_trunc('day', (SELECT max(${column}) FROM ${table}
        WHERE creator_id = $1 AND environment = '${environment}'
          AND ${column} >= $2 AND ${column} < ${bound}), 'UTC')`;
  return `
    ${name}(day) AS (
      SELECT ${latestBefore('$3')}
      UNION ALL
      SELECT ${latestBefore(`${name}.day`)} FROM ${name} WHERE ${name}.day IS NOT NULL)`;
}

const DAY_SOURCES = KEY_ENVIRONMENTS.flatMap((environment) => [
  { table: 'clicks', column: 'clicked_at', environment },
  ...ROLLUPS.map((rollup) => ({ table: rollup.table, column: 'hour', environment })),
]).map((source, i) => ({ ...source, name: `days_${i}` }));

/** Days with clicks or rollup rows of a creator within `[$2, $3)`, oldest first. */
const DAYS_WITH_ROWS_SQL = `
  WITH RECURSIVE ${DAY_SOURCES.map((source) =>
    daysWithRowsSql(source.name, source.table, source.column, source.environment),
  ).join(',')}
  SELECT DISTINCT day FROM (
    ${DAY_SOURCES.map((source) => `SELECT day FROM ${source.name}`).join(' UNION ALL ')}
  ) AS days
   WHERE day IS NOT NULL
   ORDER BY day`;

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

/** One rebuilt batch: rollup rows as the clicks make them, and how many had differed. */
export interface RollupBatchResult {
  /** Rows of the three rollups for the batch, as rebuilt. */
  rows: number;
  /** Rows that were missing, extra or wrong before (0: the batch was right and left alone). */
  differingRows: number;
}

/**
 * The hourly rollups of the clicks (docs/analytics.md). Writers keep them through triggers on
 * `clicks`; this repository recomputes them from the clicks for repairs.
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

  /** Starts of the UTC days in `[from, to)` that hold clicks or rollup rows of the creator. */
  async findDaysWithRows(creatorId: string, from: Date, to: Date | null): Promise<Date[]> {
    const rows: { day: Date }[] = await this.dataSource.query(DAYS_WITH_ROWS_SQL, [
      creatorId,
      from,
      to ?? 'infinity',
    ]);
    return rows.map((row) => new Date(row.day));
  }

  /**
   * Makes the creator's rollup rows of `[from, to)` (whole hours) those of its clicks, in one
   * transaction that first locks the rollups against writers (LOCK_ROLLUPS_SQL).
   */
  rebuildBatch(creatorId: string, from: Date, to: Date): Promise<RollupBatchResult> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(LOCK_ROLLUPS_SQL);
      const [counts]: Record<string, number>[] = await manager.query(REBUILD_BATCH_SQL, [
        creatorId,
        from,
        to,
      ]);
      const total = (suffix: string) =>
        ROLLUPS.reduce((sum, rollup) => sum + counts[`${rollup.name}_${suffix}`], 0);
      return { rows: total('rows'), differingRows: total('differing') };
    });
  }
}
