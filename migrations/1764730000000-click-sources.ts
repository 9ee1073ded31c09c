import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  COMPACT_FUNCTION,
  compactFunctionSql,
  deltaFunctionSql,
  LINK_DELTAS,
  LINKS_ALL,
  linksAllViewSql,
  viewWithDeltasSql,
} from './click-rollup-delta-sql';
import {
  type Change,
  CHANGES,
  COUNTRY_HOURS,
  type CreatorRollup,
  DEVICE_HOURS,
  DEVICE_SOURCE_HOURS,
  LINKS,
  LINKS_BY_SOURCE,
  lockSql,
  MERCHANT_REGION_DAYS,
  REGION_DAYS,
  type Rollup,
  ROUTE_ROLLUPS,
} from './click-rollup-sql';

const BEFORE: readonly CreatorRollup[] = [
  ...ROUTE_ROLLUPS,
  COUNTRY_HOURS,
  DEVICE_HOURS,
  REGION_DAYS,
  MERCHANT_REGION_DAYS,
];
const AFTER: readonly CreatorRollup[] = [
  ...ROUTE_ROLLUPS,
  COUNTRY_HOURS,
  DEVICE_SOURCE_HOURS,
  REGION_DAYS,
  MERCHANT_REGION_DAYS,
];

const keyOf = (rollup: Rollup): string => rollup.key.map(([column]) => column).join(', ');

/** The unique key of a rollup table made by createTableSql, for the given key columns. */
const replaceKeySql = (rollup: Rollup): string => `
  ALTER TABLE ${rollup.table}
    DROP CONSTRAINT ${rollup.table}_key,
    ADD CONSTRAINT ${rollup.table}_key UNIQUE NULLS NOT DISTINCT (${keyOf(rollup)})`;

/**
 * Down: a rollup's rows of every other source folded into the row of `link` with the same
 * key, so that dropping the column leaves one row per old key.
 */
function foldSourcesSql(rollup: Rollup, withoutSource: Rollup): string {
  const key = keyOf(withoutSource);
  const values = ['clicks', ...rollup.sums.map(([column]) => column)];
  return `
    WITH moved AS (DELETE FROM ${rollup.table} WHERE source <> 'link' RETURNING *)
    INSERT INTO ${rollup.table} AS rollup (${key}, source, ${values.join(', ')})
    SELECT ${key}, 'link', ${values.map((column) => `sum(${column})`).join(', ')}
      FROM moved
     GROUP BY ${key}
     ORDER BY ${key}
    ON CONFLICT (${keyOf(rollup)})
    DO UPDATE SET ${values.map((column) => `${column} = rollup.${column} + excluded.${column}`).join(', ')}`;
}

/**
 * Each click records how the visitor came (`source`: `qr` for a scan of the link's QR code,
 * else `link`; docs/qr-codes.md), and the time series groups by it (docs/analytics.md). The
 * link rollup (and its deltas) and the device rollup are keyed by it too: the link rollup
 * because it is what every creator rollup is settled and rebuilt from, and the open hours
 * read; the device rollup because a series by source is then read like one by device, at
 * most twice its rows, where a rollup of its own would cost every settled hour one more
 * upsert. Every click stored so far came by its link, so the new columns start as `link`
 * and no row moves.
 */
export class ClickSources1764730000000 implements MigrationInterface {
  name = 'ClickSources1764730000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // clicks first, as every writer locks it before the rollups.
    await queryRunner.query(
      `ALTER TABLE clicks ADD COLUMN source varchar(8) NOT NULL DEFAULT 'link'`,
    );
    await queryRunner.query(lockSql(BEFORE));
    for (const table of [LINKS.table, LINK_DELTAS, DEVICE_HOURS.table]) {
      // The default fills the rows there are, and the rows of a load that names no source
      // (a bench's direct rows): they stand for clicks of the link, as on `clicks`.
      await queryRunner.query(
        `ALTER TABLE ${table} ADD COLUMN source varchar(8) NOT NULL DEFAULT 'link'`,
      );
    }
    await queryRunner.query(replaceKeySql(LINKS_BY_SOURCE));
    await queryRunner.query(replaceKeySql(DEVICE_SOURCE_HOURS));
    await queryRunner.query(compactFunctionSql(LINKS_BY_SOURCE, 'CREATE OR REPLACE'));
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(deltaFunctionSql(change, AFTER, LINKS_BY_SOURCE));
    }
    await queryRunner.query(`DROP VIEW ${LINKS_ALL}`);
    await queryRunner.query(linksAllViewSql(LINKS_BY_SOURCE));
    await queryRunner.query(`DROP VIEW ${DEVICE_HOURS.view}`);
    await queryRunner.query(viewWithDeltasSql(DEVICE_SOURCE_HOURS));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`LOCK TABLE clicks IN ACCESS EXCLUSIVE MODE`);
    await queryRunner.query(lockSql(AFTER));
    await queryRunner.query(`SELECT ${COMPACT_FUNCTION}(NULL)`);
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(deltaFunctionSql(change, BEFORE));
    }
    await queryRunner.query(compactFunctionSql(LINKS, 'CREATE OR REPLACE'));
    await queryRunner.query(`DROP VIEW ${LINKS_ALL}`);
    await queryRunner.query(`DROP VIEW ${DEVICE_HOURS.view}`);
    await queryRunner.query(foldSourcesSql(LINKS_BY_SOURCE, LINKS));
    await queryRunner.query(foldSourcesSql(DEVICE_SOURCE_HOURS, DEVICE_HOURS));
    await queryRunner.query(
      `ALTER TABLE ${LINKS.table} DROP CONSTRAINT ${LINKS.table}_key, DROP COLUMN source`,
    );
    await queryRunner.query(`ALTER TABLE ${LINK_DELTAS} DROP COLUMN source`);
    await queryRunner.query(
      `ALTER TABLE ${DEVICE_HOURS.table} DROP CONSTRAINT ${DEVICE_HOURS.table}_key, DROP COLUMN source`,
    );
    for (const rollup of [LINKS, DEVICE_HOURS]) {
      await queryRunner.query(
        `ALTER TABLE ${rollup.table} ADD CONSTRAINT ${rollup.table}_key UNIQUE NULLS NOT DISTINCT (${keyOf(rollup)})`,
      );
    }
    await queryRunner.query(linksAllViewSql(LINKS));
    await queryRunner.query(viewWithDeltasSql(DEVICE_HOURS));
    await queryRunner.query(`ALTER TABLE clicks DROP COLUMN source`);
  }
}
