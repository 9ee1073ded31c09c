import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Marks the plan rows an operator has changed (docs/operations.md): the seed that runs at
 * every boot leaves them alone, so a restart never undoes the operator, as it does for the
 * merchants' `edited_by_operator`.
 */
export class PlanOperatorEdits1764640000000 implements MigrationInterface {
  name = 'PlanOperatorEdits1764640000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE plans ADD COLUMN edited_by_operator boolean NOT NULL DEFAULT false`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE plans DROP COLUMN edited_by_operator`);
  }
}
