import { ulid } from 'ulid';
import { ClickSources1764730000000 } from '../../migrations/1764730000000-click-sources';
import { createCreatorWithKey } from '../factories/creator.factory';
import {
  clickWriter,
  randomClicks,
  rollupsOf,
  storedClicksOf,
  storedRollupsOf,
  writeClicks,
} from '../support/click-rollups';
import { inRolledBackMigration } from '../support/rolled-back-transaction';
import { startTestApp, TestApp } from '../support/test-app';

describe('ClickSources1764730000000 (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false' });
  });
  afterAll(() => t.close());

  it('should key the rollups by source, fold the sources into link rows on down, and start over as link on up', async () => {
    const { creatorId } = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const creator = { creatorId, linkIds: [ulid(), ulid()] };
    const records = randomClicks(120, { seed: 32, creators: [creator], days: ['2026-03-13'] });
    expect(new Set(records.map((record) => record.source))).toEqual(new Set(['link', 'qr']));
    await writeClicks(clickWriter(t.app), records);
    // Applied: every rollup as the clicks make it, by source where keyed by it.
    expect(await storedRollupsOf(t.app, [creatorId])).toEqual(
      rollupsOf(await storedClicksOf(t.app, [creatorId])),
    );

    await inRolledBackMigration(async (runner) => {
      const migration = new ClickSources1764730000000();
      const count = async (sql: string, parameters: unknown[] = [creatorId]): Promise<number> =>
        Number(((await runner.query(sql, parameters)) as { count: string }[])[0].count);
      const columns = `SELECT count(*) FROM information_schema.columns
         WHERE column_name = 'source' AND table_name IN
               ('clicks', 'click_rollup_links', 'click_rollup_link_deltas', 'click_rollup_device_hours')`;
      expect(await count(columns, [])).toBe(4);

      await migration.down(runner);
      expect(await count(columns, [])).toBe(0);
      // One row per old key, every click still counted.
      for (const [view, key] of [
        [
          'click_rollup_links_all',
          'link_id, hour, merchant_id, network_id, preset, outcome, region, visitor_country, device_class',
        ],
        ['click_rollup_device_hours_all', 'hour, device_class'],
      ]) {
        expect(await count(`SELECT sum(clicks) AS count FROM ${view} WHERE creator_id = $1`)).toBe(
          records.length,
        );
        const groups = `SELECT count(*) FROM (SELECT DISTINCT environment, ${key} FROM ${view}
           WHERE creator_id = $1) AS keys`;
        const rows = `SELECT count(*) FROM ${view.replace('_all', '')} WHERE creator_id = $1`;
        expect(await count(rows)).toBe(await count(groups));
      }

      await migration.up(runner);
      expect(await count(columns, [])).toBe(4);
      // Every stored click and rollup row came before the sources: all `link`.
      expect(
        await count(
          `SELECT count(*) FROM click_rollup_device_hours WHERE creator_id = $1 AND source <> 'link'`,
        ),
      ).toBe(0);
      expect(
        await count(
          `SELECT sum(clicks) AS count FROM click_rollup_device_hours_all WHERE creator_id = $1 AND source = 'link'`,
        ),
      ).toBe(records.length);
    });
  });
});
