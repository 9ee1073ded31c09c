import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  COMPACT_FUNCTION,
  COMPACT_FUNCTION_SQL,
  CREATE_DELTAS_SQL,
  deltaFunctionSql,
  LINK_DELTAS,
  LINKS_ALL,
  LINKS_ALL_VIEW_SQL,
  viewWithDeltasSql,
} from './click-rollup-delta-sql';
import {
  type Change,
  CHANGES,
  COUNTRY_HOURS,
  type CreatorRollup,
  DEVICE_HOURS,
  functionSql,
  lockSql,
  MERCHANT_REGION_DAYS,
  REGION_DAYS,
  ROUTE_ROLLUPS,
  viewSql,
} from './click-rollup-sql';

const CREATOR_ROLLUPS: readonly CreatorRollup[] = [
  ...ROUTE_ROLLUPS,
  COUNTRY_HOURS,
  DEVICE_HOURS,
  REGION_DAYS,
  MERCHANT_REGION_DAYS,
];

/**
 * Click writers append to deltas of the link rollup instead of upserting it
 * (docs/analytics.md "Writer cost"): the upsert, an index probe, a row lock and a new row
 * version per click in the bench's shape, was most of what the rollups cost a click. The
 * deltas are folded into the link rollup by a compaction every few seconds, many clicks
 * per upserted row; the creator rollups' views and `click_rollup_links_all` add them up
 * beside the link rows until then.
 */
export class ClickRollupLinkDeltas1764620000000 implements MigrationInterface {
  name = 'ClickRollupLinkDeltas1764620000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(lockSql(CREATOR_ROLLUPS));
    for (const sql of CREATE_DELTAS_SQL) await queryRunner.query(sql);
    await queryRunner.query(COMPACT_FUNCTION_SQL);
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(deltaFunctionSql(change, CREATOR_ROLLUPS));
    }
    for (const rollup of CREATOR_ROLLUPS) await queryRunner.query(viewWithDeltasSql(rollup));
    await queryRunner.query(LINKS_ALL_VIEW_SQL);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(lockSql(CREATOR_ROLLUPS));
    await queryRunner.query(`SELECT ${COMPACT_FUNCTION}(NULL)`);
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(functionSql(change, CREATOR_ROLLUPS));
    }
    await queryRunner.query(`DROP VIEW ${LINKS_ALL}`);
    for (const rollup of CREATOR_ROLLUPS) {
      await queryRunner.query(`DROP VIEW ${rollup.view}`);
      await queryRunner.query(viewSql(rollup));
    }
    await queryRunner.query(`DROP FUNCTION ${COMPACT_FUNCTION}(integer)`);
    await queryRunner.query(`DROP TABLE ${LINK_DELTAS}`);
  }
}
