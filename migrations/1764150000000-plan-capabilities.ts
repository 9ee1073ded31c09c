import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Plan capabilities that code used to infer from plan ids ('enterprise' for test keys and
 * IP allowlists, 'free' for the hard quota cap) become columns of the plan row, like has_api_access and
 * has_bulk_access already were, so a new plan is configured, not coded.
 */
export class PlanCapabilities1764150000000 implements MigrationInterface {
  name = 'PlanCapabilities1764150000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE plans
        ADD COLUMN has_test_keys boolean NOT NULL DEFAULT false,
        ADD COLUMN has_ip_allowlists boolean NOT NULL DEFAULT false,
        ADD COLUMN is_hard_cap boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `UPDATE plans SET has_test_keys = true, has_ip_allowlists = true WHERE id = 'enterprise'`,
    );
    await queryRunner.query(`UPDATE plans SET is_hard_cap = true WHERE id = 'free'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE plans DROP COLUMN has_test_keys, DROP COLUMN has_ip_allowlists, DROP COLUMN is_hard_cap`,
    );
  }
}
