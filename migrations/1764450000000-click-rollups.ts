import { MigrationInterface, QueryRunner } from 'typeorm';

/** A click's buckets: its UTC hour, and its UTC day (docs/analytics.md). */
const BUCKETS: Record<string, string> = {
  hour: `date_trunc('hour', clicked_at, 'UTC')`,
  day: `(clicked_at AT TIME ZONE 'UTC')::date`,
};

interface Rollup {
  table: string;
  /** `hour` or `day`: the column of the key that holds the bucket. */
  bucket: 'hour' | 'day';
  /** The columns a row is unique by, in lock order: every writer upserts in this order. */
  key: readonly string[];
  /** Exact sums behind the averages, named after the clicks column they add up. */
  sums: readonly { column: string; of: string }[];
}

const SUMS = [
  { column: 'confidence_sum', of: 'confidence' },
  { column: 'epc_sum', of: 'normalized_epc_usd' },
] as const;

/**
 * Four rollups of one row source, in the order every statement touches them (the triggers
 * and the rebuild's lock): per link and hour with every dimension; per creator and day by
 * route; per creator and hour by network and outcome; per creator and hour by audience.
 * docs/analytics.md has the row-count arithmetic behind the split.
 */
const ROLLUPS: readonly Rollup[] = [
  {
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
    ],
    sums: SUMS,
  },
  {
    table: 'click_rollup_route_days',
    bucket: 'day',
    key: ['creator_id', 'environment', 'day', 'merchant_id', 'network_id', 'preset', 'outcome'],
    sums: SUMS,
  },
  {
    table: 'click_rollup_route_hours',
    bucket: 'hour',
    key: ['creator_id', 'environment', 'hour', 'network_id', 'outcome'],
    sums: [],
  },
  {
    table: 'click_rollup_audience_hours',
    bucket: 'hour',
    key: ['creator_id', 'environment', 'hour', 'visitor_country', 'device_class'],
    sums: [],
  },
];

/** Column types as in `clicks`, so groups and comparisons behave the same on both. */
const COLUMN_TYPES: Record<string, string> = {
  creator_id: 'varchar(26) NOT NULL',
  environment: 'varchar(4) NOT NULL',
  link_id: 'varchar(26) NOT NULL',
  hour: 'timestamptz NOT NULL',
  day: 'date NOT NULL',
  merchant_id: 'varchar(64)',
  network_id: 'varchar(40)',
  preset: 'varchar(20) NOT NULL',
  outcome: 'varchar(12) NOT NULL',
  region: 'varchar(10)',
  visitor_country: 'char(2)',
  device_class: 'varchar(10) NOT NULL',
};

const valueOf = (column: string): string => BUCKETS[column] ?? column;

/** How a statement's transition tables change the rollups: rows in, rows out, or both. */
const CHANGES = {
  insert: {
    source: 'new_clicks',
    clicks: 'count(*)',
    sumOf: (column: string) => `sum(${column})`,
    isNetted: false,
  },
  delete: {
    source: 'old_clicks',
    clicks: '-count(*)',
    sumOf: (column: string) => `-sum(${column})`,
    isNetted: false,
  },
  update: {
    source: `(SELECT *, 1 AS sign FROM new_clicks UNION ALL SELECT *, -1 FROM old_clicks) AS changed`,
    clicks: 'sum(sign)',
    sumOf: (column: string) => `sum(sign * ${column})`,
    // A row updated without changing what the rollups hold nets out to nothing.
    isNetted: true,
  },
} as const;

type Change = keyof typeof CHANGES;

/**
 * Adds a statement's change to one rollup: aggregated per key, upserted in key order (the
 * lock order, so concurrent writers wait on one another but never deadlock).
 */
function upsertSql(
  { table, key, sums }: Rollup,
  change: Change,
  source: string = CHANGES[change].source,
): string {
  const { clicks, sumOf, isNetted } = CHANGES[change];
  const positions = key.map((_, i) => i + 1).join(', ');
  const columns = [...key, 'clicks', ...sums.map((sum) => sum.column)];
  const aggregates = [clicks, ...sums.map((sum) => sumOf(sum.of))];
  const values = [...key.map(valueOf), ...aggregates];
  const having = isNetted
    ? `HAVING ${aggregates.map((value) => `${value} <> 0`).join(' OR ')}`
    : '';
  const increments = ['clicks', ...sums.map((sum) => sum.column)].map(
    (column) => `${column} = rollup.${column} + excluded.${column}`,
  );
  return `
    INSERT INTO ${table} AS rollup (${columns.join(', ')})
    SELECT ${values.join(', ')}
      FROM ${source}
     GROUP BY ${positions} ${having}
     ORDER BY ${positions}
    ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${increments.join(', ')};`;
}

/** Rows a removal brought to zero clicks: an empty group is no group at all. */
function dropEmptySql({ table, bucket }: Rollup): string {
  return `
    DELETE FROM ${table}
     WHERE clicks = 0
       AND (creator_id, environment, ${bucket}) IN
           (SELECT DISTINCT creator_id, environment, ${BUCKETS[bucket]} FROM old_clicks);`;
}

const TRANSITION_TABLES: Record<Change, string> = {
  insert: 'NEW TABLE AS new_clicks',
  delete: 'OLD TABLE AS old_clicks',
  update: 'OLD TABLE AS old_clicks NEW TABLE AS new_clicks',
};

const functionOf = (change: Change): string => `click_rollups_on_${change}`;

/**
 * Hourly and daily rollups of `clicks`, kept by the table itself: statement-level triggers
 * over the transition tables add the rows a statement actually inserted (an INSERT ... ON
 * CONFLICT DO NOTHING leaves the skipped ones out), take out the rows it deleted and move
 * the rows it updated, in the same transaction. So every writer keeps them exact without
 * knowing of them: the stream consumer, its one-by-one retry, test factories, bulk loads
 * through SQL, the sandbox reset. A replayed entry inserts nothing and adds nothing.
 *
 * Each trigger touches the rollups in one order (ROLLUPS) and each in key order, so
 * concurrent writers never deadlock. Dropping, detaching or attaching a partition (the raw
 * retention), TRUNCATE and a write naming a partition fire none of them and leave the
 * rollups as they are; `linkpilot analytics rebuild` repairs what should have changed.
 *
 * The existing clicks are aggregated here, under the trigger's lock on `clicks`, so no click
 * is counted twice or missed while the migration runs.
 */
export class ClickRollups1764450000000 implements MigrationInterface {
  name = 'ClickRollups1764450000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const { table, key, sums } of ROLLUPS) {
      const columns = [
        ...key.map((column) => `${column} ${COLUMN_TYPES[column]}`),
        'clicks integer NOT NULL',
        // Unbounded numeric: the exact sum, in the scale of the clicks column (4 and 6), and no
        // overflow that would make the consumer drop a batch as bad entries.
        ...sums.map((sum) => `${sum.column} numeric NOT NULL`),
      ];
      // Room on each page for the current hour's rows to be updated in place (HOT updates).
      await queryRunner.query(`
        CREATE TABLE ${table} (
          ${columns.join(',\n          ')},
          CONSTRAINT ${table}_key UNIQUE NULLS NOT DISTINCT (${key.join(', ')})
        ) WITH (fillfactor = 80)`);
    }
    // The link rollup's key leads with the link (its reads); a creator's hours are found here.
    await queryRunner.query(
      `CREATE INDEX click_rollup_links_creator_hour_idx ON click_rollup_links (creator_id, environment, hour)`,
    );
    for (const change of Object.keys(CHANGES) as Change[]) {
      const statements = ROLLUPS.map(
        (rollup) => upsertSql(rollup, change) + (change === 'insert' ? '' : dropEmptySql(rollup)),
      );
      await queryRunner.query(`
        CREATE FUNCTION ${functionOf(change)}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          ${statements.join('\n')}
          RETURN NULL;
        END $$`);
      await queryRunner.query(`
        CREATE TRIGGER ${functionOf(change)}
          AFTER ${change.toUpperCase()} ON clicks REFERENCING ${TRANSITION_TABLES[change]}
          FOR EACH STATEMENT EXECUTE FUNCTION ${functionOf(change)}()`);
    }
    for (const rollup of ROLLUPS) await queryRunner.query(upsertSql(rollup, 'insert', 'clicks'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(`DROP TRIGGER ${functionOf(change)} ON clicks`);
      await queryRunner.query(`DROP FUNCTION ${functionOf(change)}()`);
    }
    for (const { table } of [...ROLLUPS].reverse()) await queryRunner.query(`DROP TABLE ${table}`);
  }
}
