import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Link expiry and click caps (docs/edge.md "Expiry and click caps"): a link may stop at an
 * instant (`expires_at`) or after a number of counted clicks (`max_clicks`), and then send its
 * visitors to `expired_destination` (the expired URL, canonicalised and routed when it was
 * written) or answer 410. Null for every existing link: nothing changes for them.
 */
export class LinkExpiry1764720000000 implements MigrationInterface {
  name = 'LinkExpiry1764720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE links
        ADD COLUMN expires_at timestamptz(3),
        ADD COLUMN max_clicks integer CONSTRAINT links_max_clicks_check CHECK (max_clicks > 0),
        ADD COLUMN expired_destination jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE links
        DROP COLUMN expired_destination,
        DROP COLUMN max_clicks,
        DROP COLUMN expires_at`);
  }
}
