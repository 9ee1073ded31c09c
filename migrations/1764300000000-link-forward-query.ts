import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Query forwarding: a link may append its visitors' query parameters to the destination
 * (README "Query forwarding"). Off for every existing link.
 */
export class LinkForwardQuery1764300000000 implements MigrationInterface {
  name = 'LinkForwardQuery1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE links ADD COLUMN forward_query boolean NOT NULL DEFAULT false`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE links DROP COLUMN forward_query`);
  }
}
