import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  AUDIENCE_HOURS,
  type Change,
  CHANGES,
  changeSql,
  type CreatorRollup,
  functionSql,
  LINKS,
  lockSql,
  ROUTE_ROLLUPS,
  viewSql,
} from './click-rollup-sql';

/** Before ClickRollupAudienceSplit1764550000000: the route rollups and the audience rollup. */
const CREATOR_ROLLUPS: readonly CreatorRollup[] = [...ROUTE_ROLLUPS, AUDIENCE_HOURS];

/** The trigger functions of ClickRollups1764450000000: every click to every rollup. */
function everyClickFunctionSql(change: Change): string {
  return `
    CREATE OR REPLACE FUNCTION click_rollups_on_${change}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${[LINKS, ...CREATOR_ROLLUPS].map((rollup) => changeSql(rollup, change)).join('\n')}
      RETURN NULL;
    END $$`;
}

/** The link rollup's rows of `[from, to)` (hours) as creator rollup rows, times `sign`. */
function fromLinksSql(rollup: CreatorRollup, sign: 1 | -1, from: string, to: string): string {
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
 * The watermark as a STABLE function rather than a subquery: the planner evaluates it when
 * it estimates a plan, so it sees that few link rows lie after it and reads them by index.
 * Behind a subquery (an InitPlan, unknown when planning) it guessed a third of the creator's
 * rows and scanned the whole link rollup: 0.5 s for a quota seed of 10 million clicks.
 */
const SETTLED_BEFORE_FUNCTION_SQL = `
  CREATE FUNCTION click_rollup_settled_before() RETURNS timestamptz
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT hour FROM click_rollup_watermark $$`;

const LOCK_ROLLUPS_SQL = lockSql(CREATOR_ROLLUPS);

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
      await queryRunner.query(functionSql(change, CREATOR_ROLLUPS));
    }
    await queryRunner.query(SETTLED_BEFORE_FUNCTION_SQL);
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
    await queryRunner.query(`DROP FUNCTION click_rollup_settled_before()`);
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(everyClickFunctionSql(change));
    }
    await queryRunner.query(`DROP INDEX click_rollup_links_hour_idx`);
    await queryRunner.query(`DROP TABLE click_rollup_watermark`);
  }
}
