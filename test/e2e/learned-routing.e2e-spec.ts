import { DataSource } from 'typeorm';
import { ulid } from 'ulid';
import { CreatorsService } from '../../src/account/creators.service';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { NETWORKS, subIdParamOf } from '../../src/networks/network-registry';
import type { NetworkId } from '../../src/networks/network-ids';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { insertClicks } from '../factories/click.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { edgeVisit } from '../support/edge-visit';
import { pollUntil } from '../support/poll';
import { startTestApp, TestApp } from '../support/test-app';

// adidas US (seeds/merchants/adidas.json): hints cj 0.12 USD, impact 0.10 USD per click.
const ADIDAS_URL = 'https://www.adidas.com/us/ultraboost-light-running-shoes/HQ6351.html';
// Its canonical form, the page every route sends to: adidas's rules drop the slug.
const ADIDAS_PRODUCT_PAGE = 'https://www.adidas.com/us/HQ6351.html';
const PRIOR_CLICKS = 200;
const CJ_CLICKS = 600;

/** Where a 302 of an adidas US link sends the visitor: the network and the URL without a sub-id. */
interface RoutedTo {
  networkId: NetworkId;
  /** The Location without the network's sub-id (a click id differs per click). */
  url: string;
  /** The click id the Location carries, when attribution is on. */
  subId: string | null;
}

/**
 * The route of a Location: the exact adidas US product page, and the one network whose tracking
 * parameters it carries (cj: cjevent and cjdata; impact: irclickid and irgwc).
 */
function routedTo(location: string): RoutedTo {
  const url = new URL(location);
  expect(`${url.origin}${url.pathname}`).toBe(ADIDAS_PRODUCT_PAGE);
  const networks = NETWORKS.filter((network) =>
    Object.keys(network.trackingParams).every((name) => url.searchParams.has(name)),
  );
  expect(networks).toHaveLength(1);
  const { networkId } = networks[0];
  const subId = url.searchParams.get(subIdParamOf(networkId));
  url.searchParams.delete(subIdParamOf(networkId));
  return { networkId, url: url.href, subId };
}

/** A visitor from the US: the same address and browser on every call, so the same visitor. */
const visitorAt = (t: TestApp, linkId: string, address: string) =>
  edgeVisit(t, `/r/${linkId}`, { 'CF-IPCountry': 'US', 'X-Forwarded-For': address });

/** Where a US desktop visitor's counted click goes now, with the trace (no click counted). */
const previewOf = async (api: ApiClient, linkId: string) =>
  (await api.get(`/v1/links/${linkId}/preview?country=US&device=desktop`).expect(200)).body.data
    .preview as {
    location: string;
    networkId: string;
    crcTrace: { winner: Record<string, unknown>; alternatives: Record<string, unknown>[] };
  };

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

  it('should route learned once the creator switches with PATCH /v1/account/settings', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const api = createApiClient(t, creator);
    await clickCjWithoutEarnings(creator);
    const { linkId } = (
      await api.post('/v1/links', { originalUrl: ADIDAS_URL, visitorCountry: 'US' }).expect(201)
    ).body.data.link as { linkId: string };
    const hinted = await edgeVisit(t, `/r/${linkId}`, { 'CF-IPCountry': 'US' });

    const answer = await api.patch('/v1/account/settings', { routingMode: 'learned' }).expect(200);
    // The change reaches the edge through the edge-profile change log, within about a second.
    const learned = await pollUntil(
      async () =>
        routedTo((await edgeVisit(t, `/r/${linkId}`, { 'CF-IPCountry': 'US' })).headers.location),
      (route) => route.networkId !== 'cj',
      { timeoutMs: 10_000, intervalMs: 200 },
    );

    expect(routedTo(hinted.headers.location).networkId).toBe('cj');
    expect(answer.body.data).toEqual({ settings: { attribution: false, routingMode: 'learned' } });
    // cj's 600 clicks without commission blend it below impact's hint.
    expect(learned.networkId).toBe('impact');
    expect(learned.url).toBe(routedTo((await previewOf(api, linkId)).location).url);
    expect((await routeTrace(creator)).crcTrace.learning).toMatchObject({ mode: 'learned' });
  });

  it('should refuse a routing mode that is not hinted or learned', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const api = createApiClient(t, creator);

    const answers = await Promise.all(
      ['smart', 'LEARNED', '', 1].map((routingMode) =>
        api.patch('/v1/account/settings', { routingMode }),
      ),
    );

    for (const answer of answers) {
      expect([answer.status, answer.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect(Object.keys(answer.body.error.details)).toEqual(['routingMode']);
    }
    const settings = await api.get('/v1/account/settings').expect(200);
    expect(settings.body.data.settings.routingMode).toBe('hinted');
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

describe('Learned routing from the redirect’s own clicks (e2e)', () => {
  // Half of the visitors explore (the most ROUTING_EXPLORATION_PERCENT allows), so a few dozen
  // visitors show both lanes; observations are read again after a second, not a minute.
  const EXPLORATION_PERCENT = 50;
  const VISITORS = 60;
  const COMMISSION_USD = 4;
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      PROBES_ENABLED: 'false',
      CLICK_CONSUMER_ENABLED: 'false',
      ROUTING_PRIOR_CLICKS: String(PRIOR_CLICKS),
      ROUTING_EXPLORATION_PERCENT: String(EXPLORATION_PERCENT),
      ROUTING_STATS_REFRESH_S: '1',
    });
  });
  afterAll(() => t.close());

  /** A learned creator (with click ids to the networks when asked) and an adidas US link. */
  const learnedCreatorWithLink = async (attribution: boolean) => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const api = createApiClient(t, creator);
    await api.patch('/v1/account/settings', { routingMode: 'learned', attribution }).expect(200);
    const { linkId } = (
      await api.post('/v1/links', { originalUrl: ADIDAS_URL, visitorCountry: 'US' }).expect(201)
    ).body.data.link as { linkId: string };
    return { api, linkId };
  };
  /** Each of the visitors' first click on the link, in order. */
  const firstClicks = async (linkId: string, addresses: string[]): Promise<RoutedTo[]> => {
    const routes: RoutedTo[] = [];
    for (const address of addresses) {
      const visit = await visitorAt(t, linkId, address);
      expect(visit.status).toBe(302);
      routes.push(routedTo(visit.headers.location));
    }
    return routes;
  };
  const addressesOf = (block: number) =>
    Array.from({ length: VISITORS }, (_, i) => `203.0.${block}.${i + 1}`);

  it('should send a visitor the same route all day, and a share of visitors to another route', async () => {
    const { api, linkId } = await learnedCreatorWithLink(false);
    const addresses = addressesOf(113);
    const best = routedTo((await previewOf(api, linkId)).location);

    const first = await firstClicks(linkId, addresses);
    const again = await firstClicks(linkId, addresses);

    // No observations yet: the best route is cj on its hint (the preview never explores).
    expect(best.networkId).toBe('cj');
    expect(again).toEqual(first);
    const explorers = first.filter((route) => route.url !== best.url);
    expect(explorers.every((route) => route.networkId === 'impact')).toBe(true);
    // 30 of 60 expected; a standard deviation is about 3.9 visitors.
    expect(explorers.length).toBeGreaterThanOrEqual(12);
    expect(explorers.length).toBeLessThanOrEqual(48);
  });

  it('should prefer the network whose reported commission pays more than the hints say', async () => {
    const { api, linkId } = await learnedCreatorWithLink(true);
    const addresses = addressesOf(114);
    const first = await firstClicks(linkId, addresses);
    const onCj = first.filter((route) => route.networkId === 'cj');
    const onImpact = first.filter((route) => route.networkId === 'impact');
    expect([onCj.length > 0, onImpact.length > 0, onCj.length + onImpact.length]).toEqual([
      true,
      true,
      VISITORS,
    ]);
    // A visitor who took cj, the best route then, draws no exploration today.
    const stayer = addresses[first.indexOf(onCj[0])];
    // Every click of the redirect written, so in the click rollups and attributable.
    const consumer = t.app.get(ClickStreamConsumer);
    await pollUntil(
      async () => {
        await consumer.drainOnce();
        const [row] = await t.app
          .get(DataSource)
          .query<{ clicks: number }[]>(
            `SELECT count(*)::int AS clicks FROM clicks WHERE link_id = $1`,
            [linkId],
          );
        return row.clicks;
      },
      (clicks) => clicks === VISITORS,
      { timeoutMs: 10_000, intervalMs: 100 },
    );

    // Every impact click converts; cj's earn nothing.
    const recorded = await api
      .post('/v1/conversions', {
        conversions: onImpact.map((route) => ({
          networkId: 'impact',
          clickId: route.subId,
          orderId: `IM-${ulid()}`,
          status: 'approved',
          saleAmount: 50,
          commission: COMMISSION_USD,
          currency: 'USD',
          occurredAt: new Date().toISOString(),
        })),
      })
      .expect(207);
    const learned = await pollUntil(
      () => previewOf(api, linkId),
      (preview) => preview.networkId === 'impact',
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    const revisit = await visitorAt(t, linkId, stayer);

    expect(recorded.body.data.totalRecorded).toBe(onImpact.length);
    expect(
      recorded.body.data.recorded.map(
        (item: { conversion: { attributed: boolean } }) => item.conversion.attributed,
      ),
    ).toEqual(onImpact.map(() => true));
    const impactCommission = onImpact.length * COMMISSION_USD;
    expect(learned.crcTrace.winner).toMatchObject({
      networkId: 'impact',
      learning: {
        hintEpcUsd: 0.1,
        clicks: onImpact.length,
        commissionUsd: impactCommission,
        blendedEpcUsd: expect.closeTo(
          (PRIOR_CLICKS * 0.1 + impactCommission) / (PRIOR_CLICKS + onImpact.length),
          10,
        ),
        weight: expect.closeTo(onImpact.length / (PRIOR_CLICKS + onImpact.length), 10),
      },
    });
    expect(learned.crcTrace.alternatives.find((route) => route.networkId === 'cj')).toMatchObject({
      learning: {
        hintEpcUsd: 0.12,
        clicks: onCj.length,
        commissionUsd: 0,
        blendedEpcUsd: expect.closeTo((PRIOR_CLICKS * 0.12) / (PRIOR_CLICKS + onCj.length), 10),
      },
    });
    expect(revisit.status).toBe(302);
    const revisited = routedTo(revisit.headers.location);
    expect(revisited.networkId).toBe('impact');
    expect(revisited.url).toBe(routedTo(learned.location).url);
    expect(revisited.subId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});
