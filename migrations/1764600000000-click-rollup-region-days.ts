import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  type Change,
  CHANGES,
  COUNTRY_HOURS,
  createTableSql,
  type CreatorRollup,
  DEVICE_HOURS,
  functionSql,
  lockSql,
  MERCHANT_REGION_DAYS,
  REGION_DAYS,
  ROUTE_ROLLUPS,
  settledFromLinksSql,
  viewSql,
} from './click-rollup-sql';

const ADDED = [REGION_DAYS, MERCHANT_REGION_DAYS];
const BEFORE: readonly CreatorRollup[] = [...ROUTE_ROLLUPS, COUNTRY_HOURS, DEVICE_HOURS];
const AFTER: readonly CreatorRollup[] = [...BEFORE, ...ADDED];

/**
 * Two creator rollups of clicks by day and route region (docs/analytics.md "Why these
 * tables"). A period's earnings (clicks and commission per network and region) and the
 * realised EPC learned routing blends in read the region of each click, which only the link
 * rollup held: for a creator of 10,000,000 clicks a month, the month's summary added up its
 * 3,200,000 link rows, some 0.8 s. By day, network and region the month is some 1,700 rows;
 * by merchant too (routing reads one merchant at a time) some 38,000. Both are filled from
 * the link rollup's settled hours under the lock of every rollup, so no writer adds to them
 * meanwhile.
 */
export class ClickRollupRegionDays1764600000000 implements MigrationInterface {
  name = 'ClickRollupRegionDays1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(lockSql(BEFORE));
    for (const rollup of ADDED) {
      await queryRunner.query(createTableSql(rollup));
      await queryRunner.query(settledFromLinksSql(rollup));
    }
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(functionSql(change, AFTER));
    }
    for (const rollup of ADDED) await queryRunner.query(viewSql(rollup));
    // Their statistics now, not when autovacuum gets to them: without them the planner
    // takes a month's thousands of rows for one and sorts where it should hash.
    for (const rollup of ADDED) await queryRunner.query(`ANALYZE ${rollup.table}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(lockSql(AFTER));
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(functionSql(change, BEFORE));
    }
    for (const rollup of [...ADDED].reverse()) {
      await queryRunner.query(`DROP VIEW ${rollup.view}`);
      await queryRunner.query(`DROP TABLE ${rollup.table}`);
    }
  }
}
