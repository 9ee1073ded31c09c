import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Unique-visitor sketches of the days that are over (docs/analytics.md "Unique visitors"):
 * the key-value store keeps today's and yesterday's HyperLogLogs, and the sketch mover takes
 * every older day here, merging by the register maximum.
 *
 * - `visitor_sketches`: one row per link and day (`link_id` null: the creator's sketch of
 *   the environment, over all its links). `registers` is the HyperLogLog as Redis serialises
 *   it (sparse, tens of bytes, for a few visitors; 12,304 bytes dense past about 2,000);
 *   `visitors` its count (Redis's estimator), so a day's figure is read without its sketch.
 *   The unique key is `NULLS NOT DISTINCT` (PostgreSQL 15): a creator's row is found by the
 *   upsert like a link's.
 * - `visitor_sketch_moves`: the days moved, one row each; the next run starts after the last.
 */
export class VisitorSketches1764500000000 implements MigrationInterface {
  name = 'VisitorSketches1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE visitor_sketches (
        creator_id varchar(26) NOT NULL,
        environment varchar(4) NOT NULL CHECK (environment IN ('live', 'test')),
        link_id varchar(26),
        day date NOT NULL,
        visitors integer NOT NULL CHECK (visitors >= 0),
        registers bytea NOT NULL,
        CONSTRAINT visitor_sketches_key
          UNIQUE NULLS NOT DISTINCT (creator_id, environment, link_id, day)
      )`);
    await queryRunner.query(`
      CREATE TABLE visitor_sketch_moves (
        day date PRIMARY KEY,
        moved_at timestamptz NOT NULL DEFAULT now(),
        sketches integer NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE visitor_sketch_moves`);
    await queryRunner.query(`DROP TABLE visitor_sketches`);
  }
}
