import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Redirect rules (docs/redirect-rules.md): a link's ordered rules, each with its destination
 * routed at write time, in one jsonb column (null: no rules, what every existing link has);
 * and on each click the index of the rule that picked its destination (null: none, what
 * every existing click has). Neither column has a default to fill, so neither rewrites its
 * table; the rollups do not group by the rule.
 */
export class RedirectRules1764710000000 implements MigrationInterface {
  name = 'RedirectRules1764710000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE links ADD COLUMN rules jsonb`);
    await queryRunner.query(
      `ALTER TABLE clicks ADD COLUMN rule_index smallint CHECK (rule_index BETWEEN 0 AND 19)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE clicks DROP COLUMN rule_index`);
    await queryRunner.query(`ALTER TABLE links DROP COLUMN rules`);
  }
}
