import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { ExcludedHitsLedgerService } from '../../src/analytics/excluded-hits-ledger.service';
import {
  buildAmazonUrl,
  createLinkViaApi,
  generateAsin,
  LinkBody,
} from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { DESKTOP_BROWSER_UA, edgeVisit, VISITOR_USER_AGENTS } from '../support/edge-visit';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

const HOUR_MS = 3_600_000;

describe('Link expiry and click caps (e2e)', () => {
  const clock = new TestClock();
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    // Counted clicks are drained by hand, so counts are exact when asserted.
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false' }, { clock });
    api = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'enterprise' }));
  });
  afterEach(() => clock.resume());
  afterAll(() => t.close());

  const inHours = (hours: number): string =>
    new Date(clock.nowMs() + hours * HOUR_MS).toISOString();
  const getLink = async (linkId: string): Promise<LinkBody> =>
    (await api.get(`/v1/links/${linkId}`).expect(200)).body.data.link as LinkBody;
  const countedClicks = async (linkId: string): Promise<number> => {
    await t.app.get(ClickStreamConsumer).drainOnce();
    const rows = await t.app
      .get(DataSource)
      .query<{ n: string }[]>(`SELECT count(*) AS n FROM clicks WHERE link_id = $1`, [linkId]);
    return Number(rows[0].n);
  };

  describe('the link fields', () => {
    it('should store, show and clear expiresAt, maxClicks and expiredUrl', async () => {
      const expiredAsin = generateAsin();
      const expiresAt = inHours(24);
      const link = await createLinkViaApi(api, {
        expiresAt,
        maxClicks: 500,
        expiredUrl: `https://www.amazon.com/dp/${expiredAsin}`,
      });
      expect(link).toMatchObject({
        expiresAt,
        maxClicks: 500,
        expiredUrl: `https://www.amazon.com/dp/${expiredAsin}`,
      });
      expect(await getLink(link.linkId)).toMatchObject({ expiresAt, maxClicks: 500 });

      const patched = await api
        .patch(`/v1/links/${link.linkId}`, { expiresAt: null, maxClicks: 7 })
        .expect(200);
      expect(patched.body.data.link.expiresAt).toBeUndefined();
      expect(patched.body.data.link.maxClicks).toBe(7);
      const cleared = await api
        .patch(`/v1/links/${link.linkId}`, { maxClicks: null, expiredUrl: null })
        .expect(200);
      expect(cleared.body.data.link).not.toHaveProperty('maxClicks');
      expect(cleared.body.data.link).not.toHaveProperty('expiredUrl');

      const plain = await createLinkViaApi(api);
      expect(plain).not.toHaveProperty('expiresAt');
      expect(plain).not.toHaveProperty('maxClicks');
      expect(plain).not.toHaveProperty('expiredUrl');
    });

    it('should take the fields in bulk, one bad item failing alone with its field named', async () => {
      const response = await api
        .post('/v1/links/bulk', {
          links: [
            { originalUrl: buildAmazonUrl(), maxClicks: 3, expiresAt: inHours(1) },
            { originalUrl: buildAmazonUrl(), maxClicks: 0 },
          ],
        })
        .expect(207);
      expect(response.body.data.created[0]).toMatchObject({ maxClicks: 3 });
      expect(response.body.data.failed).toEqual([
        expect.objectContaining({
          index: 1,
          error: expect.objectContaining({
            code: 'VALIDATION_ERROR',
            details: expect.objectContaining({ maxClicks: expect.any(Array) }),
          }),
        }),
      ]);
    });

    it.each([
      ['expiresAt', { expiresAt: 'tomorrow' }],
      ['expiresAt', { expiresAt: '2030-01-01T00:00:00' }],
      ['expiresAt', { expiresAt: '2020-01-01T00:00:00Z' }],
      ['expiresAt', { expiresAt: 1_900_000_000_000 }],
      ['maxClicks', { maxClicks: 0 }],
      ['maxClicks', { maxClicks: 2.5 }],
      ['maxClicks', { maxClicks: '50' }],
      ['maxClicks', { maxClicks: 100_000_001 }],
      ['expiredUrl', { expiredUrl: 'http://www.amazon.com/dp/B000000000' }],
      ['expiredUrl', { expiredUrl: 'not a url' }],
    ])('should refuse a create with a bad %s: 400 naming it (%j)', async (field, body) => {
      const response = await api
        .post('/v1/links', { originalUrl: buildAmazonUrl(), ...body })
        .expect(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(response.body.error.details)).toEqual([field]);
    });

    it.each([
      ['maxClicks', { maxClicks: -1 }],
      ['expiresAt', { expiresAt: 'soon' }],
      ['expiredUrl', { expiredUrl: 'https://10.0.0.1/x' }],
    ])('should refuse a PATCH with a bad %s: 400 naming it (%j)', async (field, body) => {
      const link = await createLinkViaApi(api);
      const response = await api.patch(`/v1/links/${link.linkId}`, body).expect(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(response.body.error.details)).toEqual([field]);
    });
  });

  describe('expiry by date', () => {
    it('should answer 410 with a small page once expiresAt has passed, counting nothing more', async () => {
      const link = await createLinkViaApi(api, { expiresAt: inHours(1) });
      await edgeVisit(t, `/r/${link.linkId}`).expect(302);

      clock.advance(HOUR_MS);
      const expired = await edgeVisit(t, `/r/${link.linkId}`).expect(410);
      expect(expired.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(expired.headers['cache-control']).toBe('private, no-store');
      expect(expired.text).toContain('This link has expired.');
      // Bots and HEAD requests are told too.
      await edgeVisit(t, `/r/${link.linkId}`, {}, 'HEAD').expect(410);
      expect(await countedClicks(link.linkId)).toBe(1);

      await t.app.get(ExcludedHitsLedgerService).flush();
      const report = await api.get(`/v1/analytics/links/${link.linkId}`).expect(200);
      expect(report.body.data.excludedHits).toMatchObject({ link_expired: 2, head: 0 });
    });

    it('should expire a link at once when a PATCH sets expiresAt in the past, and reopen it', async () => {
      const link = await createLinkViaApi(api);
      await edgeVisit(t, `/r/${link.linkId}`).expect(302);
      await api.patch(`/v1/links/${link.linkId}`, { expiresAt: inHours(-1) }).expect(200);
      await edgeVisit(t, `/r/${link.linkId}`).expect(410);
      await api.patch(`/v1/links/${link.linkId}`, { expiresAt: null }).expect(200);
      await edgeVisit(t, `/r/${link.linkId}`).expect(302);
    });

    it("should send an expired link's visitors to expiredUrl, routed with the creator's tag", async () => {
      const asin = generateAsin();
      const link = await createLinkViaApi(api, {
        expiredUrl: `https://www.amazon.com/gp/product/${asin}?utm_source=x`,
        forwardQuery: true,
      });
      await api.patch(`/v1/links/${link.linkId}`, { expiresAt: inHours(-1) }).expect(200);

      const response = await edgeVisit(t, `/r/${link.linkId}?src=news`, {
        'CF-IPCountry': 'US',
      }).expect(302);
      const creatorTag = new URL(link.routedUrl).searchParams.get('tag');
      expect(creatorTag).toEqual(expect.any(String));
      const location = new URL(response.headers.location);
      expect(location.origin + location.pathname).toBe(`https://www.amazon.com/dp/${asin}`);
      expect(location.searchParams.get('tag')).toBe(creatorTag);
      expect(location.searchParams.get('src')).toBe('news');
      // A bot gets the expired URL's stored route, tagged too.
      const bot = await edgeVisit(t, `/r/${link.linkId}`, {
        'User-Agent': VISITOR_USER_AGENTS.bot,
      }).expect(302);
      expect(new URL(bot.headers.location).searchParams.get('tag')).toBe(creatorTag);
      expect(await countedClicks(link.linkId)).toBe(0);
    });
  });

  describe('click caps', () => {
    it('should cap at maxClicks, cap at once when lowered and reopen when raised', async () => {
      const link = await createLinkViaApi(api, { maxClicks: 2 });
      await edgeVisit(t, `/r/${link.linkId}`).expect(302);
      await edgeVisit(t, `/r/${link.linkId}`).expect(302);
      await edgeVisit(t, `/r/${link.linkId}`).expect(410);
      expect(await countedClicks(link.linkId)).toBe(2);

      await api.patch(`/v1/links/${link.linkId}`, { maxClicks: 3 }).expect(200);
      await edgeVisit(t, `/r/${link.linkId}`).expect(302);
      await edgeVisit(t, `/r/${link.linkId}`).expect(410);
      await api.patch(`/v1/links/${link.linkId}`, { maxClicks: 1 }).expect(200);
      await edgeVisit(t, `/r/${link.linkId}`).expect(410);
      expect(await countedClicks(link.linkId)).toBe(3);

      // Without a cap it counts on; capped again, it starts from every click counted so far.
      await api.patch(`/v1/links/${link.linkId}`, { maxClicks: null }).expect(200);
      await edgeVisit(t, `/r/${link.linkId}`).expect(302);
      expect(await countedClicks(link.linkId)).toBe(4);
      await api.patch(`/v1/links/${link.linkId}`, { maxClicks: 5 }).expect(200);
      await edgeVisit(t, `/r/${link.linkId}`).expect(302);
      await edgeVisit(t, `/r/${link.linkId}`).expect(410);
      expect(await countedClicks(link.linkId)).toBe(5);

      await t.app.get(ExcludedHitsLedgerService).flush();
      const report = await api.get(`/v1/analytics/links/${link.linkId}`).expect(200);
      expect(report.body.data).toMatchObject({
        clicks: 5,
        excludedHits: { click_cap_reached: 4 },
      });
    });

    it('should count exactly maxClicks of concurrent clicks on two app instances, never one more', async () => {
      // Two nodes share PostgreSQL and Redis only when both are servers (not embedded).
      const isShared =
        process.env.DATABASE_URL !== undefined && process.env.REDIS_URL !== undefined;
      const second = isShared ? await startTestApp({ CLICK_CONSUMER_ENABLED: 'false' }) : t;
      try {
        const expiredAsin = generateAsin();
        const link = await createLinkViaApi(api, {
          maxClicks: 50,
          expiredUrl: `https://www.amazon.com/dp/${expiredAsin}`,
        });
        const bases = [await listeningBase(t), await listeningBase(second)];
        // 200 visitors, each from an address of its own (the per-IP window stays far away),
        // half on each node; the enterprise plan's creator window is far above 200 a minute.
        const answers = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            fetch(`${bases[i % 2]}/r/${link.linkId}`, {
              redirect: 'manual',
              headers: {
                'User-Agent': DESKTOP_BROWSER_UA,
                'X-Forwarded-For': `198.19.${Math.floor(i / 250)}.${(i % 250) + 1}`,
              },
            }).then(async (response) => {
              await response.arrayBuffer();
              return response.headers.get('location') ?? '';
            }),
          ),
        );
        const toExpiredUrl = answers.filter((location) => location.includes(expiredAsin));
        expect(answers.every((location) => location.startsWith('https://www.amazon.com/'))).toBe(
          true,
        );
        expect(toExpiredUrl).toHaveLength(150);
        // Both nodes' clicks, drained by either consumer, in the clicks table.
        await second.app.get(ClickStreamConsumer).drainOnce();
        expect(await countedClicks(link.linkId)).toBe(50);
      } finally {
        if (second !== t) await second.close();
      }
    });
  });
});

/** The app listening on a loopback port (once), as a base URL for fetch. */
async function listeningBase(app: TestApp): Promise<string> {
  const server = app.app.getHttpServer();
  if (!server.listening) await app.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
