import { MigrationInterface, QueryRunner } from 'typeorm';

/** The merchant knowledge base: one reviewed profile per merchant, with its data version. */
export class Merchants1763850000000 implements MigrationInterface {
  name = 'Merchants1763850000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE merchants (
        id varchar(64) PRIMARY KEY CHECK (id ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
        version varchar(13) NOT NULL CHECK (version ~ '^\\d{4}-\\d{2}-\\d{2}-\\d{2}$'),
        profile jsonb NOT NULL,
        data_confidence_score numeric(5, 2) NOT NULL CHECK (data_confidence_score BETWEEN 0 AND 100),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE merchants`);
  }
}
