import { DataSource } from 'typeorm';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { AnalyticsService } from '../../src/analytics/analytics.service';
import { ExcludedHitsLedgerService } from '../../src/analytics/excluded-hits-ledger.service';
import { buildAmazonUrl, createLinkViaApi } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { createLink } from '../factories/link.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const SLACK_PREVIEW = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';

describe('Excluded-hit ledger (e2e)', () => {
  let t: TestApp;
  const clock = new TestClock();
  let nextIp = 1;
  const freshIp = (): string => `203.0.113.${nextIp++ % 250}`;

  beforeAll(async () => {
    // Counted clicks are drained by hand; the ledger is flushed by hand.
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false', PROBES_ENABLED: 'false' }, { clock });
  });
  afterEach(() => clock.resume());
  afterAll(() => t.close());

  const hit = (linkId: string, headers: Record<string, string>, method: 'GET' | 'HEAD' = 'GET') =>
    (method === 'GET' ? t.http.get(`/r/${linkId}`) : t.http.head(`/r/${linkId}`))
      .set({ 'User-Agent': BROWSER_UA, 'X-Forwarded-For': freshIp(), ...headers })
      .redirects(0);
  const settle = async () => {
    await t.app.get(ClickStreamConsumer).drainOnce();
    await t.app.get(ExcludedHitsLedgerService).flush();
  };

  it('should count each excluded hit once by reason, and never a counted click', async () => {
    const api: ApiClient = createApiClient(
      t,
      await createCreatorWithKey(t.app, { plan: 'publisher' }),
    );
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    // The per-IP window is exact within one minute bucket: stand at a minute's start.
    clock.freezeAt(Math.ceil(Date.now() / 60_000) * 60_000);

    expect((await hit(link.linkId, { 'CF-IPCountry': 'US' })).status).toBe(302);
    await hit(link.linkId, {}, 'HEAD').expect(302);
    await hit(link.linkId, {}, 'HEAD').expect(302);
    await hit(link.linkId, { 'User-Agent': SLACK_PREVIEW }).expect(302);
    await hit(link.linkId, { 'User-Agent': GOOGLEBOT }).expect(302);
    await hit(link.linkId, { 'X-Bot-Score': '5' }).expect(302);
    const sameIp = { 'X-Forwarded-For': '198.51.100.77' };
    for (let i = 0; i < 200; i++) await hit(link.linkId, sameIp).expect(302);
    await hit(link.linkId, sameIp).expect(429);
    await settle();

    const report = await api.get(`/v1/analytics/links/${link.linkId}`).expect(200);
    expect(report.body.data).toMatchObject({
      linkId: link.linkId,
      clicks: 201,
      excludedHits: {
        head: 2,
        link_preview: 1,
        bot_user_agent: 1,
        bot_score: 1,
        ip_rate_limited: 1,
        creator_rate_limited: 0,
        quota_exhausted: 0,
      },
      revenueNotEarnedUsd: { creator_rate_limited: 0, quota_exhausted: 0 },
    });
    const summary = await api.get('/v1/analytics/summary').expect(200);
    expect(summary.body.data.excludedHits).toEqual(report.body.data.excludedHits);
    expect(summary.body.data.totalClicks).toBe(201);
  });

  it('should price the hits a Free quota turned away at the EPC of their routes', async () => {
    const free = await createCreatorWithKey(t.app, { plan: 'free', includedClicks: 2 });
    const originalUrl = buildAmazonUrl();
    const link = await createLink(t.app, {
      creatorId: free.creatorId,
      originalUrl,
      routedUrl: originalUrl,
      merchantId: 'amazon',
      region: 'US',
      passthroughEnabled: false,
      passthroughReason: null,
      passthroughEnabledAt: null,
      outcome: 'routed',
      routingReason: 'best_epc',
    });
    const visitor = { 'CF-IPCountry': 'US' };

    for (let i = 0; i < 4; i++) await hit(link.id, visitor).expect(302);
    await settle();

    const epcs: { normalized_epc_usd: string }[] = await t.app
      .get(DataSource)
      .query(`SELECT normalized_epc_usd FROM clicks WHERE link_id = $1`, [link.id]);
    expect(epcs).toHaveLength(2);
    const epc = Number(epcs[0].normalized_epc_usd);
    expect(epc).toBeGreaterThan(0);
    const report = await t.app
      .get(AnalyticsService)
      .linkReport({ creatorId: free.creatorId, environment: 'live' }, link.id, {});
    expect(report.excludedHits.quota_exhausted).toBe(2);
    expect(report.revenueNotEarnedUsd.quota_exhausted).toBeCloseTo(2 * epc, 5);
  });

  it("should answer 404 LINK_NOT_FOUND for another creator's link", async () => {
    const owner = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
    const other = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
    const link = await createLinkViaApi(owner, { originalUrl: buildAmazonUrl() });

    const response = await other.get(`/v1/analytics/links/${link.linkId}`);

    expect([response.status, response.body.error.code]).toEqual([404, 'LINK_NOT_FOUND']);
  });
});
