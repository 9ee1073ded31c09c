import { MigrationInterface, QueryRunner } from 'typeorm';

const HOUR = `date_trunc('hour', clicked_at, 'UTC')`;
const DAY = `(clicked_at AT TIME ZONE 'UTC')::date`;

interface Rollup {
  table: string;
  /** The columns a row is unique by, in lock order, and how a click's value is taken. */
  key: readonly (readonly [column: string, value?: string])[];
  /** Exact sums behind the averages, and the clicks column each adds up. */
  sums: readonly (readonly [column: string, of: string])[];
}

const SUMS = [
  ['confidence_sum', 'confidence'],
  ['epc_sum', 'normalized_epc_usd'],
] as const;

/** As in ClickRollups1764450000000: every writer touches them in this order. */
const LINKS: Rollup = {
  table: 'click_rollup_links',
  key: [
    ['creator_id'],
    ['environment'],
    ['link_id'],
    ['hour', HOUR],
    ['merchant_id'],
    ['network_id'],
    ['preset'],
    ['outcome'],
    ['region'],
    ['visitor_country'],
    ['device_class'],
  ],
  sums: SUMS,
};

/** The creator rollups: projections of the link rollup, which holds every dimension. */
const CREATOR_ROLLUPS: readonly (Rollup & { view: string })[] = [
  {
    table: 'click_rollup_route_days',
    view: 'click_rollup_route_days_all',
    key: [
      ['creator_id'],
      ['environment'],
      ['day', DAY],
      ['merchant_id'],
      ['network_id'],
      ['preset'],
      ['outcome'],
    ],
    sums: SUMS,
  },
  {
    table: 'click_rollup_route_hours',
    view: 'click_rollup_route_hours_all',
    key: [['creator_id'], ['environment'], ['hour', HOUR], ['network_id'], ['outcome']],
    sums: [],
  },
  {
    table: 'click_rollup_audience_hours',
    view: 'click_rollup_audience_hours_all',
    key: [['creator_id'], ['environment'], ['hour', HOUR], ['visitor_country'], ['device_class']],
    sums: [],
  },
];

/** How a statement's transition tables change the rollups: rows in, rows out, or both. */
const CHANGES = {
  insert: {
    source: (where: string) => `(SELECT * FROM new_clicks${where}) AS changed`,
    clicks: 'count(*)',
    sumOf: (column: string) => `sum(${column})`,
    rows: ['new_clicks'],
    transition: 'NEW TABLE AS new_clicks',
  },
  delete: {
    source: (where: string) => `(SELECT * FROM old_clicks${where}) AS changed`,
    clicks: '-count(*)',
    sumOf: (column: string) => `-sum(${column})`,
    rows: ['old_clicks'],
    transition: 'OLD TABLE AS old_clicks',
  },
  update: {
    source: (where: string) =>
      `(SELECT *, 1 AS sign FROM new_clicks${where} UNION ALL SELECT *, -1 FROM old_clicks${where}) AS changed`,
    clicks: 'sum(sign)',
    sumOf: (column: string) => `sum(sign * ${column})`,
    rows: ['new_clicks', 'old_clicks'],
    transition: 'OLD TABLE AS old_clicks NEW TABLE AS new_clicks',
  },
} as const;

type Change = keyof typeof CHANGES;

/**
 * Adds a statement's change to one rollup: aggregated per key, upserted in key order (the
 * lock order, so concurrent writers wait on one another but never deadlock). `where` narrows
 * the changed rows (the creator rollups take the settled ones only). An update's groups
 * that net out to nothing are left alone.
 */
function upsertSql({ table, key, sums }: Rollup, change: Change, where = ''): string {
  const { source, clicks, sumOf } = CHANGES[change];
  const positions = key.map((_, i) => i + 1).join(', ');
  const columns = [...key.map(([column]) => column), 'clicks', ...sums.map(([column]) => column)];
  const aggregates = [clicks, ...sums.map(([, of]) => sumOf(of))];
  const values = [...key.map(([column, value]) => value ?? column), ...aggregates];
  const having =
    change === 'update' ? `HAVING ${aggregates.map((value) => `${value} <> 0`).join(' OR ')}` : '';
  const increments = ['clicks', ...sums.map(([column]) => column)].map(
    (column) => `${column} = rollup.${column} + excluded.${column}`,
  );
  return `
    INSERT INTO ${table} AS rollup (${columns.join(', ')})
    SELECT ${values.join(', ')}
      FROM ${where === '' && change !== 'update' ? CHANGES[change].rows[0] : source(where)}
     GROUP BY ${positions} ${having}
     ORDER BY ${positions}
    ON CONFLICT (${key.map(([column]) => column).join(', ')}) DO UPDATE SET ${increments.join(', ')};`;
}

/** Rows a removal brought to zero clicks: an empty group is no group at all. */
function dropEmptySql({ table, key }: Rollup, where = ''): string {
  const [bucket, value] = key.find(([column]) => column === 'hour' || column === 'day') ?? [];
  return `
    DELETE FROM ${table}
     WHERE clicks = 0
       AND (creator_id, environment, ${bucket}) IN
           (SELECT DISTINCT creator_id, environment, ${value} FROM old_clicks${where});`;
}

const changeSql = (rollup: Rollup, change: Change, where = ''): string =>
  upsertSql(rollup, change, where) + (change === 'insert' ? '' : dropEmptySql(rollup, where));

const functionOf = (change: Change): string => `click_rollups_on_${change}`;

/**
 * The trigger function: the link rollup takes every changed click; the creator rollups only
 * the settled ones (clicked before the watermark, an hour's start). The watermark is read
 * after the link rollup's upsert, whose lock on the link rollup a watermark move waits for:
 * a move either committed before (and this statement sees its watermark) or waits for this
 * transaction (and then settles the clicks it adds to the link rollup).
 */
function functionSql(change: Change): string {
  const settled = ' WHERE clicked_at < settled_before';
  const anySettled = CHANGES[change].rows
    .map((rows) => `EXISTS (SELECT FROM ${rows}${settled})`)
    .join(' OR ');
  return `
    CREATE OR REPLACE FUNCTION ${functionOf(change)}() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      settled_before timestamptz;
    BEGIN
      ${changeSql(LINKS, change)}
      SELECT hour INTO settled_before FROM click_rollup_watermark;
      IF ${anySettled} THEN
        ${CREATOR_ROLLUPS.map((rollup) => changeSql(rollup, change, settled)).join('\n')}
      END IF;
      RETURN NULL;
    END $$`;
}

/** The trigger functions of ClickRollups1764450000000: every click to every rollup. */
function everyClickFunctionSql(change: Change): string {
  return `
    CREATE OR REPLACE FUNCTION ${functionOf(change)}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${[LINKS, ...CREATOR_ROLLUPS].map((rollup) => changeSql(rollup, change)).join('\n')}
      RETURN NULL;
    END $$`;
}

/** The link rollup's rows of `[from, to)` (hours) as creator rollup rows, times `sign`. */
function fromLinksSql(
  rollup: (typeof CREATOR_ROLLUPS)[number],
  sign: 1 | -1,
  from: string,
  to: string,
): string {
  const keys = rollup.key.map(([column]) =>
    column === 'day' ? `(hour AT TIME ZONE 'UTC')::date` : column,
  );
  const sums = ['clicks', ...rollup.sums.map(([column]) => column)];
  const positions = keys.map((_, i) => i + 1).join(', ');
  return `
    INSERT INTO ${rollup.table} AS rollup (${[...rollup.key.map(([column]) => column), ...sums].join(', ')})
    SELECT ${keys.join(', ')}, ${sums.map((column) => `${sign} * sum(${column})`).join(', ')}
      FROM click_rollup_links
     WHERE hour >= ${from} AND hour < ${to}
     GROUP BY ${positions}
     ORDER BY ${positions}
    ON CONFLICT (${rollup.key.map(([column]) => column).join(', ')})
    DO UPDATE SET ${sums.map((column) => `${column} = rollup.${column} + excluded.${column}`).join(', ')}`;
}

/**
 * What a read counts from: the creator rollup's settled rows, and the link rollup's rows of
 * the hours not settled yet, projected onto the creator rollup's key. Reads sum their rows
 * per group, so a group in both parts adds up.
 */
function viewSql(rollup: (typeof CREATOR_ROLLUPS)[number]): string {
  const columns = [
    ...rollup.key.map(([column]) => column),
    'clicks',
    ...rollup.sums.map(([c]) => c),
  ];
  const fromLinks = columns.map((column) =>
    column === 'day' ? `(hour AT TIME ZONE 'UTC')::date AS day` : column,
  );
  return `
    CREATE VIEW ${rollup.view} AS
    SELECT ${columns.join(', ')} FROM ${rollup.table}
    UNION ALL
    SELECT ${fromLinks.join(', ')} FROM click_rollup_links
     WHERE hour >= (SELECT hour FROM click_rollup_watermark)`;
}

const LOCK_ROLLUPS_SQL = `LOCK TABLE ${[LINKS, ...CREATOR_ROLLUPS].map((rollup) => rollup.table).join(', ')} IN SHARE ROW EXCLUSIVE MODE`;

/**
 * The creator rollups stop taking the clicks of the current hour: they hold the clicks
 * before a watermark (the start of an hour), and reads add the link rollup's rows of the
 * hours after it (views `*_all`). The writer's trigger then upserts one rollup row per click
 * and link combination instead of four; the app settles each hour into the creator rollups
 * once it is over (ClickRollupsRepository.moveWatermark, docs/analytics.md "Writer cost").
 * A click written for a settled hour (a late one, a bulk load, a deletion) still goes to
 * every rollup at once, so every writer keeps them exact, as before.
 *
 * Up starts from the state before (every click settled: a watermark at infinity) and moves
 * the watermark back to the start of the current hour, taking that hour (and any later
 * clicks) out of the creator rollups; down settles everything again.
 */
export class ClickRollupWatermark1764520000000 implements MigrationInterface {
  name = 'ClickRollupWatermark1764520000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Writers wait until the watermark, the triggers and the rollups agree.
    await queryRunner.query(LOCK_ROLLUPS_SQL);
    await queryRunner.query(`
      CREATE TABLE click_rollup_watermark (
        is_single boolean PRIMARY KEY DEFAULT true CHECK (is_single),
        hour timestamptz NOT NULL CHECK (hour = 'infinity' OR hour = date_trunc('hour', hour, 'UTC'))
      )`);
    await queryRunner.query(`INSERT INTO click_rollup_watermark (hour) VALUES ('infinity')`);
    // The settling of an hour finds its link rows across creators here.
    await queryRunner.query(
      `CREATE INDEX click_rollup_links_hour_idx ON click_rollup_links (hour)`,
    );
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(functionSql(change));
    }
    for (const rollup of CREATOR_ROLLUPS) await queryRunner.query(viewSql(rollup));
    const currentHour = `date_trunc('hour', now(), 'UTC')`;
    for (const rollup of CREATOR_ROLLUPS) {
      await queryRunner.query(fromLinksSql(rollup, -1, currentHour, `'infinity'`));
      await queryRunner.query(`DELETE FROM ${rollup.table} WHERE clicks = 0`);
    }
    await queryRunner.query(`UPDATE click_rollup_watermark SET hour = ${currentHour}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(LOCK_ROLLUPS_SQL);
    for (const rollup of CREATOR_ROLLUPS) {
      await queryRunner.query(
        fromLinksSql(rollup, 1, '(SELECT hour FROM click_rollup_watermark)', `'infinity'`),
      );
    }
    for (const rollup of [...CREATOR_ROLLUPS].reverse()) {
      await queryRunner.query(`DROP VIEW ${rollup.view}`);
    }
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(everyClickFunctionSql(change));
    }
    await queryRunner.query(`DROP INDEX click_rollup_links_hour_idx`);
    await queryRunner.query(`DROP TABLE click_rollup_watermark`);
  }
}
