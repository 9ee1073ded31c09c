import { ClickSeed, insertClicks } from '../factories/click.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The account's usage before the period's quota counter exists (its first click on this
 * store, or after the store lost it): counted from the route-day rollups, the month's days
 * exactly, never from zero.
 */
describe('Account usage without a quota counter (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false' });
  });
  afterAll(() => t.close());

  it("should count the period's stored clicks from its first millisecond, per environment", async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const now = new Date();
    const periodStartMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const at = (ms: number): string => new Date(ms).toISOString();
    const seeds: ClickSeed[] = [
      { clickedAt: at(periodStartMs - 1) },
      { clickedAt: at(periodStartMs - 86_400_000) },
      { clickedAt: at(periodStartMs) },
      { clickedAt: at(periodStartMs + 3_600_000 - 1) },
      { clickedAt: at(Math.max(now.getTime() - 60_000, periodStartMs)) },
      { clickedAt: at(Math.max(now.getTime() - 60_000, periodStartMs)), environment: 'test' },
    ];
    await insertClicks(t.app, creator.creatorId, seeds);

    const response = await createApiClient(t, creator).get('/v1/account').expect(200);

    // No click went through the edge, so no counter exists: the rollups answer.
    expect(response.body.data.clicksUsedThisPeriod).toBe(3);
  });
});
