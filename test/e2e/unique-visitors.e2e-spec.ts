import { buildAmazonUrl, createLinkViaApi } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
];

/**
 * 0.81% is the HyperLogLog's standard error, in Redis and in the in-process store alike (the
 * same registers); 3 standard errors, and at least 1.
 */
const tolerance = (n: number): number => Math.max(1, Math.ceil(3 * 0.0081 * n));

describe('Unique visitors (e2e)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp({ PROBES_ENABLED: 'false' });
    api = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
  });
  afterAll(() => t.close());

  /** Visitor i: its own address, one of three browsers; a different link's visit too. */
  const visit = (linkId: string, i: number) =>
    t.http
      .get(`/r/${linkId}`)
      .set({
        'User-Agent': BROWSERS[i % BROWSERS.length],
        'X-Forwarded-For': `10.${(i >> 8) & 255}.${i & 255}.7`,
        'CF-IPCountry': 'US',
      })
      .redirects(0)
      .expect(302);

  it('should count each visitor once per day, per link and for the creator, whatever their clicks', async () => {
    const first = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    const second = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    const visitors = 180;

    for (let i = 0; i < visitors; i++) {
      await visit(first.linkId, i);
      await visit(first.linkId, i);
      // A third of them also visit the second link.
      if (i % 3 === 0) await visit(second.linkId, i);
    }

    const report = async (linkId: string) =>
      (await api.get(`/v1/analytics/links/${linkId}`).expect(200)).body.data as {
        uniqueVisitors: number;
      };
    const firstCount = (await report(first.linkId)).uniqueVisitors;
    const secondCount = (await report(second.linkId)).uniqueVisitors;
    const summary = (await api.get('/v1/analytics/summary').expect(200)).body.data as {
      uniqueVisitors: number;
    };
    expect(Math.abs(firstCount - visitors)).toBeLessThanOrEqual(tolerance(visitors));
    expect(Math.abs(secondCount - visitors / 3)).toBeLessThanOrEqual(tolerance(visitors / 3));
    expect(Math.abs(summary.uniqueVisitors - visitors)).toBeLessThanOrEqual(tolerance(visitors));
  });

  it('should not count bots and HEAD requests as visitors', async () => {
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    await t.http
      .head(`/r/${link.linkId}`)
      .set({ 'User-Agent': BROWSERS[0], 'X-Forwarded-For': '10.99.0.1' })
      .redirects(0)
      .expect(302);
    await t.http
      .get(`/r/${link.linkId}`)
      .set({ 'User-Agent': 'Googlebot/2.1', 'X-Forwarded-For': '10.99.0.2' })
      .redirects(0)
      .expect(302);

    const report = await api.get(`/v1/analytics/links/${link.linkId}`).expect(200);

    expect(report.body.data.uniqueVisitors).toBe(0);
  });
});
