import { createCreatorWithKey } from '../factories/creator.factory';
import { buildAmazonUrl, createLinkViaApi, LinkBody } from '../factories/api-link.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { edgeVisit } from '../support/edge-visit';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The spec's link lifecycle table, one describe per row, through the API and the edge. The
 * probe rows (deepLinkStatus and healthStatus transitions) need a probe target server and are
 * in probes.e2e-spec.ts ("the probe results", "the TTL sweep", "after POST /v1/links").
 */
describe('Link lifecycle (e2e)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp({ PROBES_ENABLED: 'false' });
    api = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
  });
  afterAll(() => t.close());

  /** Where a visitor from the US on a desktop browser is sent; null for a 404. */
  const visit = async (linkId: string): Promise<string | null> => {
    const response = await edgeVisit(t, `/r/${linkId}`, { 'CF-IPCountry': 'US' });
    if (response.status === 404) return null;
    expect(response.status).toBe(302);
    return response.headers.location;
  };
  const read = async (linkId: string): Promise<LinkBody> =>
    (await api.get(`/v1/links/${linkId}`).expect(200)).body.data.link as LinkBody;
  const listedIds = async (): Promise<string[]> =>
    (await api.get('/v1/links?limit=100').expect(200)).body.data.items.map(
      (item: { linkId: string }) => item.linkId,
    );
  /** Every field but updatedAt, which any PATCH moves. */
  const routeOf = (link: LinkBody) => {
    const { updatedAt: _updatedAt, passthrough: _passthrough, ...rest } = link;
    return rest;
  };

  describe('(none) -> POST create link -> active', () => {
    it('should create an active link with healthStatus unknown and deepLinkStatus unchecked', async () => {
      const link = await createLinkViaApi(api);

      expect(link).toMatchObject({ healthStatus: 'unknown', deepLinkStatus: 'unchecked' });
      expect(await listedIds()).toContain(link.linkId);
      expect(await visit(link.linkId)).toBe(link.routedUrl);
    });
  });

  describe('active -> DELETE link -> soft-deleted', () => {
    it('should drop the link from the list, and its reads and redirect answer 404', async () => {
      const link = await createLinkViaApi(api);
      expect(await visit(link.linkId)).toBe(link.routedUrl);

      await api.delete(`/v1/links/${link.linkId}`).expect(200);

      expect(await listedIds()).not.toContain(link.linkId);
      const reread = await api.get(`/v1/links/${link.linkId}`);
      expect([reread.status, reread.body.error.code]).toEqual([404, 'LINK_NOT_FOUND']);
      expect(await visit(link.linkId)).toBeNull();
      expect(await visit(link.linkId.toLowerCase())).toBeNull();
    });
  });

  describe('passthrough off -> create with passthrough true -> passthrough on', () => {
    it('should require a reason', async () => {
      const response = await api.post('/v1/links', {
        originalUrl: buildAmazonUrl(),
        passthrough: true,
      });

      expect(response.status).toBe(400);
      expect(Object.keys(response.body.error.details)).toEqual(['passthroughReason']);
    });

    it('should bypass routing, canonicalisation and UTM injection', async () => {
      const originalUrl = `${buildAmazonUrl()}?tag=other-20&utm_source=x`;

      const link = await createLinkViaApi(api, {
        originalUrl,
        passthrough: true,
        passthroughReason: 'Untouched for a review',
      });

      expect(link).toMatchObject({
        routedUrl: originalUrl,
        canonicalUrl: '',
        region: null,
        networkId: null,
        outcome: 'passthrough',
        passthrough: { enabled: true, reason: 'Untouched for a review' },
      });
      expect(await visit(link.linkId)).toBe(originalUrl);
    });
  });

  describe('passthrough off -> PATCH passthrough true -> passthrough on', () => {
    it('should require a reason, then serve the original URL', async () => {
      const link = await createLinkViaApi(api);

      const noReason = await api.patch(`/v1/links/${link.linkId}`, { passthrough: true });
      expect(noReason.status).toBe(400);
      expect(Object.keys(noReason.body.error.details)).toEqual(['passthroughReason']);

      const on = await api
        .patch(`/v1/links/${link.linkId}`, { passthrough: true, passthroughReason: 'Paused' })
        .expect(200);

      expect(on.body.data.link).toMatchObject({
        routedUrl: link.originalUrl,
        passthrough: { enabled: true, reason: 'Paused' },
      });
      expect(await visit(link.linkId)).toBe(link.originalUrl);
    });
  });

  describe('passthrough on -> PATCH passthrough false -> passthrough off, routing not re-evaluated', () => {
    it('should keep the passthrough route of a link created in passthrough', async () => {
      const originalUrl = `${buildAmazonUrl()}?tag=other-20`;
      const link = await createLinkViaApi(api, {
        originalUrl,
        passthrough: true,
        passthroughReason: 'Untouched for a review',
      });

      const off = await api.patch(`/v1/links/${link.linkId}`, { passthrough: false }).expect(200);

      // Only the flag, its reason and enabledAt change.
      expect(off.body.data.link.passthrough).toEqual({ enabled: false });
      expect(routeOf(off.body.data.link)).toEqual(routeOf(link));
      expect(await read(link.linkId)).toEqual(off.body.data.link);
      expect(await visit(link.linkId)).toBe(originalUrl);
      // A new create is what routes afresh.
      const fresh = await createLinkViaApi(api, { originalUrl });
      expect(fresh).toMatchObject({ outcome: 'routed', networkId: 'amazon_associates' });
    });

    it('should serve again the route stored at creation of a link routed then paused', async () => {
      const link = await createLinkViaApi(api);
      await api
        .patch(`/v1/links/${link.linkId}`, { passthrough: true, passthroughReason: 'Paused' })
        .expect(200);

      const off = await api.patch(`/v1/links/${link.linkId}`, { passthrough: false }).expect(200);

      expect(off.body.data.link.passthrough).toEqual({ enabled: false });
      expect(routeOf(off.body.data.link)).toEqual(routeOf(link));
      expect(await visit(link.linkId)).toBe(link.routedUrl);
    });
  });
});
