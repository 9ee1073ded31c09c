import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  AUDIENCE_HOURS,
  type Change,
  CHANGES,
  createTableSql,
  type CreatorRollup,
  functionSql,
  lockSql,
  COUNTRY_HOURS,
  DEVICE_HOURS,
  ROUTE_ROLLUPS,
  settledFromLinksSql,
  viewSql,
} from './click-rollup-sql';

const BEFORE: readonly CreatorRollup[] = [...ROUTE_ROLLUPS, AUDIENCE_HOURS];
const AFTER: readonly CreatorRollup[] = [...ROUTE_ROLLUPS, COUNTRY_HOURS, DEVICE_HOURS];

/**
 * The audience rollup by country and device together becomes one by country and one by
 * device (docs/analytics.md "Why these tables"): a creator's month is 720 hours x up to 56
 * country-device pairs, some 40,000 rows, which every series by country or device added up,
 * while by country alone it is 720 x 14 and by device 720 x 4. The writer's trigger is
 * unchanged for the open hours (the link rollup only); settling an hour, and a click of a
 * settled hour, write one creator rollup more.
 *
 * The new rollups are filled from the old one (which holds exactly the settled hours), under
 * the lock of every rollup, so no writer adds to them meanwhile; down makes the old one again
 * from the link rollup's settled hours.
 */
export class ClickRollupAudienceSplit1764550000000 implements MigrationInterface {
  name = 'ClickRollupAudienceSplit1764550000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(lockSql(BEFORE));
    for (const rollup of [COUNTRY_HOURS, DEVICE_HOURS]) {
      await queryRunner.query(createTableSql(rollup));
      const columns = rollup.key.map(([column]) => column).join(', ');
      await queryRunner.query(`
        INSERT INTO ${rollup.table} (${columns}, clicks)
        SELECT ${columns}, sum(clicks) FROM ${AUDIENCE_HOURS.table}
         GROUP BY ${columns} ORDER BY ${columns}`);
    }
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(functionSql(change, AFTER));
    }
    for (const rollup of [COUNTRY_HOURS, DEVICE_HOURS]) await queryRunner.query(viewSql(rollup));
    await queryRunner.query(`DROP VIEW ${AUDIENCE_HOURS.view}`);
    await queryRunner.query(`DROP TABLE ${AUDIENCE_HOURS.table}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(lockSql(AFTER));
    await queryRunner.query(createTableSql(AUDIENCE_HOURS));
    await queryRunner.query(settledFromLinksSql(AUDIENCE_HOURS));
    for (const change of Object.keys(CHANGES) as Change[]) {
      await queryRunner.query(functionSql(change, BEFORE));
    }
    await queryRunner.query(viewSql(AUDIENCE_HOURS));
    for (const rollup of [DEVICE_HOURS, COUNTRY_HOURS]) {
      await queryRunner.query(`DROP VIEW ${rollup.view}`);
      await queryRunner.query(`DROP TABLE ${rollup.table}`);
    }
  }
}
