import { DataSource, QueryRunner } from 'typeorm';
import { EdgeProfileChanges1764400000000 } from '../../migrations/1764400000000-edge-profile-changes';
import { loadConfig } from '../../src/config/env';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { ENTITIES } from '../../src/entities';
import { inRolledBackTransaction } from '../support/rolled-back-transaction';
import { newUlid } from '../../src/common/ids';
import { seedPlans } from '../../seeds/plans.seed';

/**
 * The edge-profile change log's triggers (migration 1764400000000), on the run's database.
 * Each test runs in a transaction that is rolled back, so no other suite's server sees its
 * rows (a plan change would make them read every cached creator), and reads only the rows its
 * own transaction wrote (servers of other suites write the log at the same time).
 */
describe('Edge-profile change log (e2e)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    const { database } = loadConfig(process.env);
    dataSource = new DataSource(
      buildDataSourceOptions(database.url ?? '', database.poolSize, ENTITIES),
    );
    await dataSource.initialize();
  });
  afterAll(() => dataSource.destroy());

  /** The creator ids this transaction logged since `after` (a log id), in order; null: every creator. */
  const loggedSince = async (runner: QueryRunner, after: string) =>
    (
      await runner.manager.query<{ creator_id: string | null }[]>(
        `SELECT creator_id FROM edge_profile_changes
          WHERE id > $1 AND xmin = pg_current_xact_id()::xid ORDER BY id`,
        [after],
      )
    ).map((row) => row.creator_id);
  const lastLogId = async (runner: QueryRunner) =>
    (
      await runner.manager.query<{ id: string }[]>(
        `SELECT COALESCE(max(id), 0)::text AS id FROM edge_profile_changes`,
      )
    )[0].id;
  /** What `statement` logs: the ids it logged, sorted (null first). */
  const logOf = async (runner: QueryRunner, statement: string, parameters: unknown[] = []) => {
    const after = await lastLogId(runner);
    await runner.query(statement, parameters);
    return (await loggedSince(runner, after)).sort((a, b) =>
      a === null ? -1 : b === null ? 1 : a.localeCompare(b),
    );
  };
  const insertCreators = (runner: QueryRunner, ids: string[]) =>
    logOf(
      runner,
      `INSERT INTO creators (id, email, display_name, plan_id)
       SELECT id, lower(id) || '@changes.test', 'Changes', 'publisher' FROM unnest($1::varchar[]) AS id`,
      [ids],
    );
  const newCreatorIds = (count: number) => Array.from({ length: count }, () => newUlid()).sort();

  it('should log each creator once per multi-row insert, and only profile changes on update', async () => {
    await inRolledBackTransaction(dataSource, async (runner) => {
      const ids = newCreatorIds(3);
      expect(await insertCreators(runner, ids)).toEqual(ids);
      // Four accounts each, one statement: one row per creator, not per account.
      expect(
        await logOf(
          runner,
          `INSERT INTO network_accounts (creator_id, network_id, affiliate_id)
           SELECT id, network, id || '-' || network
             FROM unnest($1::varchar[]) AS id, unnest($2::varchar[]) AS network`,
          [ids, ['awin', 'cj', 'impact', 'rakuten']],
        ),
      ).toEqual(ids);

      // Columns the profile does not read, and writes of the same values: nothing.
      expect(
        await logOf(runner, `UPDATE creators SET display_name = 'Renamed' WHERE id = ANY($1)`, [
          ids,
        ]),
      ).toEqual([]);
      expect(
        await logOf(
          runner,
          `UPDATE creators SET plan_id = plan_id, included_clicks_override = NULL WHERE id = ANY($1)`,
          [ids],
        ),
      ).toEqual([]);
      expect(
        await logOf(
          runner,
          `UPDATE network_accounts SET updated_at = now() WHERE creator_id = ANY($1)`,
          [ids],
        ),
      ).toEqual([]);

      expect(
        await logOf(runner, `UPDATE creators SET included_clicks_override = 5 WHERE id = $1`, [
          ids[0],
        ]),
      ).toEqual([ids[0]]);
      expect(
        await logOf(runner, `UPDATE creators SET plan_id = 'free' WHERE id = ANY($1)`, [
          ids.slice(1),
        ]),
      ).toEqual(ids.slice(1));
      expect(
        await logOf(
          runner,
          `UPDATE network_accounts SET is_active = false WHERE creator_id = $1 AND network_id IN ('cj', 'awin')`,
          [ids[1]],
        ),
      ).toEqual([ids[1]]);
      // An upsert that changes one affiliate id and inserts another account.
      expect(
        await logOf(
          runner,
          `INSERT INTO network_accounts (creator_id, network_id, affiliate_id)
           VALUES ($1, 'awin', 'changed'), ($2, 'ebay_partner_network', 'new')
           ON CONFLICT (creator_id, network_id) DO UPDATE SET affiliate_id = EXCLUDED.affiliate_id`,
          [ids[0], ids[2]],
        ),
      ).toEqual([ids[0], ids[2]]);
      expect(
        await logOf(
          runner,
          `DELETE FROM network_accounts WHERE creator_id = $1 AND network_id = 'cj'`,
          [ids[2]],
        ),
      ).toEqual([ids[2]]);
      // The creator's delete, and its accounts' by cascade.
      expect(await logOf(runner, `DELETE FROM creators WHERE id = $1`, [ids[0]])).toEqual([
        ids[0],
        ids[0],
      ]);
    });
  });

  it('should log a plan change as one row for every creator, and an unchanged seed as none', async () => {
    await inRolledBackTransaction(dataSource, async (runner) => {
      const after = await lastLogId(runner);
      // The plan seed (`db seed`), in this transaction.
      await seedPlans(runner.manager);
      expect(await loggedSince(runner, after)).toEqual([]);
      expect(
        await logOf(runner, `UPDATE plans SET display_name = display_name || ' (renamed)'`),
      ).toEqual([]);
      expect(
        await logOf(
          runner,
          `UPDATE plans SET included_clicks = included_clicks + 1 WHERE id IN ('pro', 'creator')`,
        ),
      ).toEqual([null]);
      expect(
        await logOf(runner, `UPDATE plans SET is_hard_cap = NOT is_hard_cap WHERE id = 'free'`),
      ).toEqual([null]);
    });
  });

  it('should log a TRUNCATE as every creator', async () => {
    await inRolledBackTransaction(dataSource, async (runner) => {
      expect(await logOf(runner, `TRUNCATE network_accounts`)).toEqual([null]);
    });
  });

  it('should drop the log, its triggers and functions on down, and make them again on up', async () => {
    const objects = async (runner: QueryRunner) =>
      (
        await runner.manager.query<{ count: number }[]>(
          `SELECT (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'edge\\_profile\\_log\\_%')
                + (SELECT count(*) FROM pg_proc WHERE proname LIKE 'edge\\_profile\\_log\\_%')
                + (SELECT count(*) FROM pg_class WHERE relname LIKE 'edge\\_profile\\_changes%')
                  AS count`,
        )
      )[0].count;
    await inRolledBackTransaction(dataSource, async (runner) => {
      // 3 tables: 8 event triggers and 3 TRUNCATE ones; 4 functions; the table, its sequence
      // and its two indexes.
      expect(Number(await objects(runner))).toBe(11 + 4 + 4);
      const migration = new EdgeProfileChanges1764400000000();
      await migration.down(runner);
      expect(Number(await objects(runner))).toBe(0);
      await migration.up(runner);
      expect(Number(await objects(runner))).toBe(11 + 4 + 4);
      expect(await insertCreators(runner, newCreatorIds(2))).toHaveLength(2);
    });
  });
});
