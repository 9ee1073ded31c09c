import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The test-key sandbox: every link and click records the environment of the key that made
 * it (`live` or `test`), and every read is scoped by creator and environment, so the
 * creator-first indexes gain the environment as their second column. Rows stored before are
 * live (the column's default fills them without a table rewrite).
 */
export class RecordEnvironments1764200000000 implements MigrationInterface {
  name = 'RecordEnvironments1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['links', 'clicks']) {
      await queryRunner.query(`
        ALTER TABLE ${table}
          ADD COLUMN environment varchar(4) NOT NULL DEFAULT 'live'
            CHECK (environment IN ('live', 'test'))`);
    }
    await queryRunner.query(`DROP INDEX links_creator_created_idx`);
    await queryRunner.query(`
      CREATE INDEX links_creator_created_idx
          ON links (creator_id, environment, created_at DESC, id DESC) WHERE deleted_at IS NULL`);
    await queryRunner.query(`DROP INDEX clicks_creator_clicked_idx`);
    await queryRunner.query(`
      CREATE INDEX clicks_creator_clicked_idx
          ON clicks (creator_id, environment, clicked_at DESC, record_id DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX clicks_creator_clicked_idx`);
    await queryRunner.query(
      `CREATE INDEX clicks_creator_clicked_idx ON clicks (creator_id, clicked_at DESC, record_id DESC)`,
    );
    await queryRunner.query(`DROP INDEX links_creator_created_idx`);
    await queryRunner.query(
      `CREATE INDEX links_creator_created_idx ON links (creator_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    );
    await queryRunner.query(`DELETE FROM clicks WHERE environment = 'test'`);
    await queryRunner.query(`DELETE FROM links WHERE environment = 'test'`);
    for (const table of ['links', 'clicks']) {
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN environment`);
    }
  }
}
