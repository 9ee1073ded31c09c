import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * FX rate history: one row per successful refresh (or the bundled snapshot), never updated.
 * The rates in use are the latest fetched row; the index serves that lookup.
 */
export class FxRates1763900000000 implements MigrationInterface {
  name = 'FxRates1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE fx_rates (
        id bigserial PRIMARY KEY,
        valid_at timestamptz(3) NOT NULL,
        fetched_at timestamptz(3) NOT NULL,
        source varchar(10) NOT NULL CHECK (source IN ('primary', 'fallback', 'snapshot')),
        rates jsonb NOT NULL CHECK (jsonb_typeof(rates) = 'object')
      )`);
    await queryRunner.query(
      `CREATE INDEX fx_rates_fetched_at_idx ON fx_rates (fetched_at DESC, id DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE fx_rates`);
  }
}
