import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Click records, partitioned by month of clicked_at. The unique key (record_id, clicked_at)
 * makes the stream consumer's inserts idempotent (a partitioned table's unique keys must hold
 * the partition key). Partitions for the coming months are created by the click jobs; the
 * DEFAULT partition catches anything outside them so no click is ever refused.
 */
export class Clicks1764000000000 implements MigrationInterface {
  name = 'Clicks1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE clicks (
        record_id varchar(26) NOT NULL,
        link_id varchar(26) NOT NULL,
        creator_id varchar(26) NOT NULL,
        merchant_id varchar(64),
        region varchar(10),
        network_id varchar(40),
        preset varchar(20) NOT NULL,
        outcome varchar(12) NOT NULL CHECK (outcome IN ('routed', 'fallback', 'passthrough')),
        normalized_epc_usd numeric(12, 6) NOT NULL,
        confidence numeric(5, 4) NOT NULL,
        deep_link_used boolean NOT NULL,
        private_deal_applied boolean NOT NULL DEFAULT false,
        visitor_country char(2),
        device_class varchar(10) NOT NULL,
        clicked_at timestamptz(3) NOT NULL,
        PRIMARY KEY (record_id, clicked_at)
      ) PARTITION BY RANGE (clicked_at)`);
    await queryRunner.query(`CREATE TABLE clicks_default PARTITION OF clicks DEFAULT`);
    await queryRunner.query(
      `CREATE INDEX clicks_creator_clicked_idx ON clicks (creator_id, clicked_at DESC, record_id DESC)`,
    );
    await queryRunner.query(`CREATE INDEX clicks_link_idx ON clicks (link_id, clicked_at DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE clicks`);
  }
}
