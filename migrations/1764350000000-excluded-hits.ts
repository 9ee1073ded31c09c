import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The excluded-hit ledger: hits on /r/ that were served but not counted, per link, UTC day
 * and reason, as counters (never a row per hit). `epc_usd_sum` adds up the normalised EPC of
 * the route each excluded hit would have taken: the revenue not earned, where the hit was a
 * real visitor (creator_rate_limited, quota_exhausted).
 */
export class ExcludedHits1764350000000 implements MigrationInterface {
  name = 'ExcludedHits1764350000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE excluded_hits (
        day date NOT NULL,
        link_id varchar(26) NOT NULL,
        creator_id varchar(26) NOT NULL,
        environment varchar(4) NOT NULL CHECK (environment IN ('live', 'test')),
        reason varchar(24) NOT NULL,
        hits bigint NOT NULL,
        epc_usd_sum numeric(16, 6) NOT NULL DEFAULT 0,
        PRIMARY KEY (link_id, day, reason)
      )`);
    await queryRunner.query(
      `CREATE INDEX excluded_hits_creator_day_idx ON excluded_hits (creator_id, environment, day)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE excluded_hits`);
  }
}
