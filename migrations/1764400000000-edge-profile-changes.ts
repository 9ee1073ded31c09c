import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tables a creator's edge profile is read from (CreatorsService.readEdgeLimits,
 * NetworkAccountsService.readActiveAffiliateIds): the expression naming the creator a row
 * belongs to (a plan row stands for every creator on it: NULL, "every creator"), the columns
 * the profile reads (the row's key included, so a changed key counts) and the events logged
 * (a new plan has no creator yet).
 */
const SOURCES = [
  {
    table: 'creators',
    creator: 'id',
    columns: 'id, plan_id, included_clicks_override',
    events: ['INSERT', 'UPDATE', 'DELETE'],
  },
  {
    table: 'network_accounts',
    creator: 'creator_id',
    columns: 'creator_id, network_id, affiliate_id, is_active',
    events: ['INSERT', 'UPDATE', 'DELETE'],
  },
  {
    table: 'plans',
    creator: 'NULL::varchar',
    columns: 'id, included_clicks, edge_clicks_per_minute, is_hard_cap',
    events: ['UPDATE', 'DELETE'],
  },
] as const;

/** The statement-level transition tables each event can see. */
const TRANSITION_TABLES = {
  INSERT: 'NEW TABLE AS new_rows',
  UPDATE: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
  DELETE: 'OLD TABLE AS old_rows',
} as const;

const functionOf = (table: string): string => `edge_profile_log_${table}`;

/**
 * The edge-profile change log: which creators' profiles changed, and when, written by
 * triggers on every table the profile is read from, so a change made by any process (the
 * server, the admin CLI without Redis, raw SQL) is seen by every server's profile refresh,
 * which then reads again only those creators instead of every creator clicked.
 *
 * Statement-level triggers over transition tables: a multi-row insert (the benchmark seeds
 * 120,000 network accounts that way) logs its distinct creators in one insert, not one per
 * row. An update logs only the creators whose profile columns changed (the rows of the
 * symmetric difference), so an idempotent upsert (the plan seed) or an update of other
 * columns logs nothing. (A trigger with transition tables can take neither a column list nor
 * several events, hence the comparison and one trigger per event.) TRUNCATE logs "every creator".
 * `changed_at` is clock_timestamp(): a reader allows for transactions that commit after it.
 */
export class EdgeProfileChanges1764400000000 implements MigrationInterface {
  name = 'EdgeProfileChanges1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE edge_profile_changes (
        id bigserial PRIMARY KEY,
        creator_id varchar(26),
        changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(
      `CREATE INDEX edge_profile_changes_changed_at_idx ON edge_profile_changes (changed_at)`,
    );
    await queryRunner.query(`
      CREATE FUNCTION edge_profile_log_everyone() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO edge_profile_changes (creator_id) VALUES (NULL);
        RETURN NULL;
      END $$`);
    for (const { table, creator, columns, events } of SOURCES) {
      await queryRunner.query(`
        CREATE FUNCTION ${functionOf(table)}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN
            INSERT INTO edge_profile_changes (creator_id) SELECT DISTINCT ${creator} FROM new_rows;
          ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO edge_profile_changes (creator_id) SELECT DISTINCT ${creator} FROM old_rows;
          ELSE
            INSERT INTO edge_profile_changes (creator_id)
            SELECT DISTINCT ${creator} FROM (
              (SELECT ${columns} FROM new_rows EXCEPT SELECT ${columns} FROM old_rows)
              UNION ALL
              (SELECT ${columns} FROM old_rows EXCEPT SELECT ${columns} FROM new_rows)
            ) AS changed;
          END IF;
          RETURN NULL;
        END $$`);
      for (const event of events) {
        await queryRunner.query(`
          CREATE TRIGGER edge_profile_log_${event.toLowerCase()}
            AFTER ${event} ON ${table} REFERENCING ${TRANSITION_TABLES[event]}
            FOR EACH STATEMENT EXECUTE FUNCTION ${functionOf(table)}()`);
      }
      await queryRunner.query(`
        CREATE TRIGGER edge_profile_log_truncate AFTER TRUNCATE ON ${table}
          FOR EACH STATEMENT EXECUTE FUNCTION edge_profile_log_everyone()`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const { table, events } of SOURCES) {
      for (const event of [...events, 'TRUNCATE']) {
        await queryRunner.query(`DROP TRIGGER edge_profile_log_${event.toLowerCase()} ON ${table}`);
      }
      await queryRunner.query(`DROP FUNCTION ${functionOf(table)}()`);
    }
    await queryRunner.query(`DROP FUNCTION edge_profile_log_everyone()`);
    await queryRunner.query(`DROP TABLE edge_profile_changes`);
  }
}
