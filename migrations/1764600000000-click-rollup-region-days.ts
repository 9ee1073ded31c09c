import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  type Change,
  CHANGES,
  COUNTRY_HOURS,
  createTableSql,
  type CreatorRollup,
  DAY,
  DEVICE_HOURS,
  functionSql,
  lockSql,
  ROUTE_ROLLUPS,
  settledFromLinksSql,
  viewSql,
} from './click-rollup-sql';

/** The clicks by merchant, network and route region of each day: what earnings divide by. */
const REGION_DAYS: CreatorRollup = {
  table: 'click_rollup_region_days',
  view: 'click_rollup_region_days_all',
  key: [['creator_id'], ['environment'], ['day', DAY], ['merchant_id'], ['network_id'], ['region']],
  sums: [],
};

const BEFORE: readonly CreatorRollup[] = [...ROUTE_ROLLUPS, COUNTRY_HOURS, DEVICE_HOURS];
const AFTER: readonly CreatorRollup[] = [...BEFORE, REGION_DAYS];

/**
 * A creator rollup of clicks by day, merchant, network and route region (docs/analytics.md
 * "Why these tables"). The earnings of a period (clicks and commission per network and
 * region, the realised EPC learned routing blends in) read the region of each click, which
 * only the link rollup held: for a creator of 10,000,000 clicks a month, the month's summary
 * added up its 3,200,000 link rows, some 0.8 s. By day, merchant, network and region the
 * month is a few thousand rows. Filled from the link rollup's settled hours under the lock
 * of every rollup, so no writer adds to it meanwhile.
 */
export class ClickRollupRegionDays1764600000000 implements MigrationInterface {
  name = 'ClickRollupRegionDays1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(lockSql(BEFORE));
    await queryRunner.query(createTableSql(REGION_DAYS));
    await queryRunner.query(settledFromLinksSql(REGION_DAYS));
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(functionSql(change, AFTER));
    }
    await queryRunner.query(viewSql(REGION_DAYS));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(lockSql(AFTER));
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(functionSql(change, BEFORE));
    }
    await queryRunner.query(`DROP VIEW ${REGION_DAYS.view}`);
    await queryRunner.query(`DROP TABLE ${REGION_DAYS.table}`);
  }
}
