import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Marks the knowledge-base rows an operator has changed (`merchants set-epc`): the seed that
 * runs at every boot leaves them alone, so a restart never undoes the operator; only an
 * explicit `npx linkpilot kb apply` replaces them with the bundled profiles.
 */
export class MerchantOperatorEdits1764540000000 implements MigrationInterface {
  name = 'MerchantOperatorEdits1764540000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE merchants ADD COLUMN edited_by_operator boolean NOT NULL DEFAULT false`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE merchants DROP COLUMN edited_by_operator`);
  }
}
