import { CreatorsService } from '../../src/account/creators.service';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { insertClicks } from '../factories/click.factory';
import { createApiClient } from '../support/api-client';
import { edgeVisit } from '../support/edge-visit';
import { startTestApp, TestApp } from '../support/test-app';

// adidas US (seeds/merchants/adidas.json): hints cj 0.12 USD, impact 0.10 USD per click.
const ADIDAS_URL = 'https://www.adidas.com/us/ultraboost-light-running-shoes/HQ6351.html';
const PRIOR_CLICKS = 200;
const CJ_CLICKS = 600;

describe('Learned routing (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    // No exploration, so every visitor of the redirect takes the best route.
    t = await startTestApp({
      PROBES_ENABLED: 'false',
      ROUTING_PRIOR_CLICKS: String(PRIOR_CLICKS),
      ROUTING_EXPLORATION_PERCENT: '0',
    });
  });
  afterAll(() => t.close());

  const routeTrace = async (creator: TestCreator) => {
    const response = await createApiClient(t, creator)
      .post('/v1/route', { originalUrl: ADIDAS_URL, visitorCountry: 'US', includeCrcTrace: true })
      .expect(200);
    return response.body.data as {
      networkId: string;
      crcTrace: {
        winner: Record<string, unknown>;
        alternatives: Record<string, unknown>[];
        learning?: Record<string, unknown>;
      };
    };
  };

  // 600 counted clicks on cj with no commission recorded: cj's realised EPC is 0.
  const clickCjWithoutEarnings = (creator: TestCreator) =>
    insertClicks(
      t.app,
      creator.creatorId,
      Array.from({ length: CJ_CLICKS }, () => ({
        clickedAt: new Date(),
        merchantId: 'adidas',
        region: 'US',
        networkId: 'cj' as const,
      })),
    );

  it('should show the blend per candidate and route by it for a learned creator', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    await t.app.get(CreatorsService).update(creator.creatorId, { routingMode: 'learned' });
    await clickCjWithoutEarnings(creator);

    const decision = await routeTrace(creator);

    // cj: (200 × 0.12 + 0) / (200 + 600) = 0.03 USD, below impact's untouched hint 0.10.
    expect(decision.networkId).toBe('impact');
    expect(decision.crcTrace.learning).toEqual({
      mode: 'learned',
      priorClicks: PRIOR_CLICKS,
      explorationShare: 0,
      isExploration: false,
    });
    expect(decision.crcTrace.winner.learning).toEqual({
      hintEpcUsd: 0.1,
      clicks: 0,
      commissionUsd: 0,
      blendedEpcUsd: 0.1,
      weight: 0,
    });
    const cj = decision.crcTrace.alternatives.find((route) => route.networkId === 'cj');
    expect(cj?.learning).toEqual({
      hintEpcUsd: 0.12,
      clicks: CJ_CLICKS,
      commissionUsd: 0,
      blendedEpcUsd: expect.closeTo(0.03, 10),
      weight: 0.75,
    });
  });

  it('should send the learned creator’s visitors to the blended best route', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    await t.app.get(CreatorsService).update(creator.creatorId, { routingMode: 'learned' });
    await clickCjWithoutEarnings(creator);
    const created = await createApiClient(t, creator)
      .post('/v1/links', { originalUrl: ADIDAS_URL, visitorCountry: 'US' })
      .expect(201);
    const { linkId, networkId } = created.body.data.link as { linkId: string; networkId: string };
    expect(networkId).toBe('impact');

    const visit = await edgeVisit(t, `/r/${linkId}`, { 'CF-IPCountry': 'US' });

    expect(visit.status).toBe(302);
    expect(visit.headers.location).toContain('impact');
  });

  it('should keep a hinted creator on the hints, with no learning in the trace', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    await clickCjWithoutEarnings(creator);

    const decision = await routeTrace(creator);

    expect(decision.networkId).toBe('cj');
    expect(decision.crcTrace.learning).toBeUndefined();
    expect(decision.crcTrace.winner.learning).toBeUndefined();
  });
});
