import { DataSource, QueryRunner } from 'typeorm';
import { PLAN_SEEDS, seedPlans } from '../../seeds/plans.seed';
import { loadConfig } from '../../src/config/env';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { ENTITIES } from '../../src/entities';
import { inRolledBackTransaction } from '../support/rolled-back-transaction';

const SEEDED_CREATOR_CLICKS = PLAN_SEEDS.find((plan) => plan.id === 'creator')!.includedClicks;
const SEEDED_PRO_CLICKS = PLAN_SEEDS.find((plan) => plan.id === 'pro')!.includedClicks;

/**
 * The plan seed that runs at every boot, against an operator's changes. Each test runs in a
 * transaction that is rolled back: other suites' servers read the plans, and must not see
 * this one's edits.
 */
describe('Plan seeding and operator changes (e2e)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    const { database } = loadConfig(process.env);
    dataSource = new DataSource(buildDataSourceOptions(database.url ?? '', 1, ENTITIES));
    await dataSource.initialize();
  });
  afterAll(() => dataSource.destroy());

  const includedClicks = async (runner: QueryRunner, planId: string) =>
    (
      await runner.manager.query<{ included_clicks: number }[]>(
        `SELECT included_clicks FROM plans WHERE id = $1`,
        [planId],
      )
    )[0].included_clicks;

  it('should keep a plan row marked as the operator’s across seeds, and restore an unmarked one', async () => {
    await inRolledBackTransaction(dataSource, async (runner) => {
      // Other suites change plan rows in rolled-back transactions of their own: taking the table
      // first waits for them, where rows locked in another order could deadlock.
      await runner.query(`LOCK TABLE plans IN SHARE ROW EXCLUSIVE MODE`);
      await runner.query(
        `UPDATE plans SET included_clicks = 12345, edited_by_operator = true WHERE id = 'creator'`,
      );
      await runner.query(`UPDATE plans SET included_clicks = 777 WHERE id = 'pro'`);

      const first = await seedPlans(runner.manager);
      expect(first.keptOperatorEdits).toBe(1);
      expect(first.written).toBeGreaterThanOrEqual(1);
      expect(await includedClicks(runner, 'creator')).toBe(12345);
      expect(await includedClicks(runner, 'pro')).toBe(SEEDED_PRO_CLICKS);

      // A second boot: the edit is still the operator's, and nothing else is rewritten.
      expect(await seedPlans(runner.manager)).toEqual({ written: 0, keptOperatorEdits: 1 });
      expect(await includedClicks(runner, 'creator')).toBe(12345);

      // Cleared, the mark hands the row back to the seed.
      await runner.query(`UPDATE plans SET edited_by_operator = false WHERE id = 'creator'`);
      expect(await seedPlans(runner.manager)).toEqual({ written: 1, keptOperatorEdits: 0 });
      expect(await includedClicks(runner, 'creator')).toBe(SEEDED_CREATOR_CLICKS);
    });
  });
});
