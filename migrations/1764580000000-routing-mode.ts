import { MigrationInterface, QueryRunner } from 'typeorm';
import { edgeProfileLogSql } from './edge-profile-log-sql';

/** The creators' columns the edge profile reads, whichever of them this schema has. */
const PROFILE_COLUMNS = [
  'id',
  'plan_id',
  'included_clicks_override',
  // Added by the conversions migration where it has run before this one.
  'attribution',
  'routing_mode',
];

/**
 * `creators.routing_mode`: how a creator's links are scored, `hinted` (the knowledge base's
 * EPC hints, as before) or `learned` (the hints blended with the creator's realised EPC,
 * docs/routing.md section 10). The edge routes with it, so a change must reach the edge's
 * profile cache: EdgeProfileChanges1764400000000's function for `creators` is replaced to log
 * changes of this column too, beside every profile column the schema has so far.
 */
export class RoutingMode1764580000000 implements MigrationInterface {
  name = 'RoutingMode1764580000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE creators ADD COLUMN routing_mode varchar(7) NOT NULL DEFAULT 'hinted'
        CONSTRAINT creators_routing_mode_check CHECK (routing_mode IN ('hinted', 'learned'))`);
    await queryRunner.query(edgeProfileLogSql(await profileColumns(queryRunner)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const columns = (await profileColumns(queryRunner)).filter((c) => c !== 'routing_mode');
    await queryRunner.query(edgeProfileLogSql(columns));
    await queryRunner.query(`ALTER TABLE creators DROP COLUMN routing_mode`);
  }
}

async function profileColumns(queryRunner: QueryRunner): Promise<string[]> {
  const rows = (await queryRunner.query(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'creators'
        AND column_name = ANY($1::text[])`,
    [PROFILE_COLUMNS],
  )) as { column_name: string }[];
  const present = new Set(rows.map((row) => row.column_name));
  return PROFILE_COLUMNS.filter((column) => present.has(column));
}
