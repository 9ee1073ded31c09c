import { DataSource } from 'typeorm';
import { runCli } from '../../src/cli/run-cli';
import { loadConfig } from '../../src/config/env';
import { seed, SEED_ENTITIES } from '../../src/cli/seed';
import { migrate, withDataSource } from '../../src/database/database-tasks';
import { createLinkViaApi } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

// Only this suite touches noon: no other suite's routing or webhooks see its EPC move.
const MERCHANT = 'noon';
const REGION = 'AE';
const NETWORK = 'noon_affiliates';
const BUNDLED_EPC = 0.18;

async function cli(...args: string[]): Promise<{ code: number; json: Record<string, any> }> {
  let stdout = '';
  const code = await runCli(
    [...args, '--json'],
    { ...process.env, LOG_LEVEL: 'fatal' },
    { out: (text) => (stdout += text), err: () => undefined },
  );
  return { code, json: JSON.parse(stdout) as Record<string, any> };
}

/** What `npm start` and the Docker CMD do before serving: migrate, then seed. */
function bootSeed(): Promise<Record<string, number>> {
  return withDataSource(
    loadConfig(process.env).database,
    async (dataSource: DataSource) => {
      await migrate(dataSource);
      return seed(dataSource);
    },
    { entities: SEED_ENTITIES },
  );
}

describe('Knowledge-base seeding and operator changes (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    // From the bundled profile, whatever an earlier run on this database left.
    const reset = await cli('kb', 'apply', MERCHANT);
    if (reset.code !== 0) throw new Error(`kb apply: ${JSON.stringify(reset.json)}`);
  });
  afterAll(() => t.close());

  /** The EPC a freshly booted server serves, as a restart would load it. */
  async function servedEpcAfterRestart(authorization: string): Promise<number> {
    await bootSeed();
    const restarted = await startTestApp();
    try {
      const response = await restarted.http
        .get(`/v1/merchants/${MERCHANT}`)
        .set('Authorization', authorization)
        .expect(200);
      return response.body.data.merchant.regions[REGION].epcHints[NETWORK] as number;
    } finally {
      await restarted.close();
    }
  }

  it('should keep a set-epc change across restarts until kb apply restores the bundle and tells creators', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    await createLinkViaApi(createApiClient(t, creator), {
      originalUrl: 'https://www.noon.com/uae-en/N53433250A/p',
    });
    const setEpc = await cli(
      'merchants',
      'set-epc',
      MERCHANT,
      '--region',
      REGION,
      '--network',
      NETWORK,
      '--epc',
      '0.77',
    );
    expect(setEpc.code).toBe(0);

    expect(await servedEpcAfterRestart(creator.authorization)).toBe(0.77);
    expect(await servedEpcAfterRestart(creator.authorization)).toBe(0.77);

    const preview = await cli('kb', 'apply', MERCHANT, '--dry-run');
    expect(preview).toEqual({
      code: 0,
      json: {
        knowledgeBase: {
          applied: false,
          unchanged: 0,
          creatorsNotified: 0,
          differences: [
            {
              merchantId: MERCHANT,
              change: 'changed',
              editedByOperator: true,
              version: { before: expect.any(String), after: expect.any(String) },
              epcHints: [
                {
                  region: REGION,
                  networkId: NETWORK,
                  currency: 'AED',
                  before: 0.77,
                  after: BUNDLED_EPC,
                },
              ],
            },
          ],
        },
      },
    });
    expect(await servedEpcAfterRestart(creator.authorization)).toBe(0.77);

    const applied = await cli('kb', 'apply', MERCHANT);
    expect(applied.code).toBe(0);
    // Earlier runs on this database left creators with noon links: each is told too.
    expect(applied.json.knowledgeBase).toMatchObject({ applied: true });
    expect(applied.json.knowledgeBase.creatorsNotified).toBeGreaterThanOrEqual(1);
    const events = await t.app
      .get(DataSource)
      .query<{ data: Record<string, unknown> }[]>(
        `SELECT data FROM webhook_events WHERE creator_id = $1 AND type = 'commission_rate.changed' ORDER BY id`,
        [creator.creatorId],
      );
    expect(events.map((event) => event.data)).toEqual([
      expect.objectContaining({ epcHint: { before: BUNDLED_EPC, after: 0.77 } }),
      expect.objectContaining({ epcHint: { before: 0.77, after: BUNDLED_EPC }, linksAffected: 1 }),
    ]);
    expect(await servedEpcAfterRestart(creator.authorization)).toBe(BUNDLED_EPC);
    expect((await cli('kb', 'apply', MERCHANT)).json.knowledgeBase).toMatchObject({
      differences: [],
      unchanged: 1,
    });
  });

  it('should bring a row the seed still owns to the bundled profile at boot', async () => {
    await t.app
      .get(DataSource)
      .query(
        `UPDATE merchants SET profile = jsonb_set(profile, '{meta,changelogNotes}', '"stale"') WHERE id = $1`,
        [MERCHANT],
      );
    expect((await bootSeed()).merchants).toBeGreaterThanOrEqual(1);
    const [row] = await t.app
      .get(DataSource)
      .query<{ notes: string }[]>(
        `SELECT profile->'meta'->>'changelogNotes' AS notes FROM merchants WHERE id = $1`,
        [MERCHANT],
      );
    expect(row.notes).not.toBe('stale');
  });

  it('should refuse kb apply for a merchant the bundle does not have', async () => {
    const refused = await cli('kb', 'apply', 'no-such-merchant');
    expect(refused.code).toBe(1);
    expect(refused.json.error.code).toBe('VALIDATION_ERROR');
  });
});
