import { DataSource } from 'typeorm';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { buildAmazonUrl, createLinkViaApi } from '../factories/api-link.factory';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { edgeVisit } from '../support/edge-visit';
import { pollUntil } from '../support/poll';
import { startTestApp, TestApp } from '../support/test-app';

describe('Click ids to the networks (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ PROBES_ENABLED: 'false', CLICK_CONSUMER_ENABLED: 'false' });
  });
  afterAll(() => t.close());

  const newCreator = async (): Promise<{ creator: TestCreator; api: ApiClient }> => {
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    return { creator, api: createApiClient(t, creator) };
  };
  const visit = async (path: string): Promise<URL> => {
    const response = await edgeVisit(t, path, { 'CF-IPCountry': 'US' });
    expect(response.status).toBe(302);
    return new URL(response.headers.location);
  };
  const storedRecordIds = async (linkId: string): Promise<string[]> => {
    await t.app.get(ClickStreamConsumer).drainOnce();
    const rows = await t.app
      .get(DataSource)
      .query<{ record_id: string }[]>(
        `SELECT record_id FROM clicks WHERE link_id = $1 ORDER BY clicked_at`,
        [linkId],
      );
    return rows.map((row) => row.record_id);
  };
  /** Turns the creator's attribution on and waits until the edge routes with it. */
  const attributionOn = async (api: ApiClient, linkId: string) => {
    const answer = await api.patch('/v1/account/settings', { attribution: true }).expect(200);
    expect(answer.body.data).toEqual({ settings: { attribution: true, routingMode: 'hinted' } });
    await pollUntil(
      async () => (await visit(`/r/${linkId}`)).searchParams.has('ascsubtag'),
      (found) => found,
      { timeoutMs: 10_000, intervalMs: 200 },
    );
  };

  it("should leave routed URLs as they were by default, and carry the click's record id once attribution is on", async () => {
    const { api } = await newCreator();
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    expect(link.attribution).toBeNull();
    const before = await visit(`/r/${link.linkId}`);

    await attributionOn(api, link.linkId);
    const after = await visit(`/r/${link.linkId}`);

    expect(before.searchParams.has('ascsubtag')).toBe(false);
    const subId = after.searchParams.get('ascsubtag');
    expect(after.href).toBe(`${before.href}&ascsubtag=${subId}`);
    expect(await storedRecordIds(link.linkId)).toContain(subId);
  });

  it('should attribute a postback carrying the sub-id to the link the click was on', async () => {
    const { api } = await newCreator();
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    await attributionOn(api, link.linkId);
    const clickId = (await visit(`/r/${link.linkId}`)).searchParams.get('ascsubtag') ?? '';
    await storedRecordIds(link.linkId);
    const token = (await api.post('/v1/conversions/postback-token').expect(201)).body.data.token;

    const postback = await t.http.get(`/postbacks/${token}/amazon_associates`).query({
      clickId,
      orderId: '114-0000001-0000001',
      status: 'pending',
      saleAmount: '30',
      commission: '1.2',
      currency: 'USD',
    });

    expect(postback.status).toBe(200);
    expect(postback.body.data.conversion).toMatchObject({
      clickId,
      linkId: link.linkId,
      attributed: true,
      commissionUsd: 1.2,
    });
    const report = (await api.get(`/v1/analytics/links/${link.linkId}`).expect(200)).body.data;
    expect(report.earnings).toMatchObject({ conversions: 1, pendingCommissionUsd: 1.2 });
  });

  it("should let a link's own setting win over the creator's, on create, bulk and PATCH", async () => {
    const { api } = await newCreator();
    const off = await createLinkViaApi(api, { originalUrl: buildAmazonUrl(), attribution: false });
    const on = await createLinkViaApi(api, { originalUrl: buildAmazonUrl(), attribution: true });
    const bulk = await api
      .post('/v1/links/bulk', { links: [{ originalUrl: buildAmazonUrl(), attribution: true }] })
      .expect(207);
    const bulkLinkId = bulk.body.data.created[0].linkId as string;

    expect((await visit(`/r/${off.linkId}`)).searchParams.has('ascsubtag')).toBe(false);
    expect((await visit(`/r/${on.linkId}`)).searchParams.has('ascsubtag')).toBe(true);
    expect((await visit(`/r/${bulkLinkId}`)).searchParams.has('ascsubtag')).toBe(true);

    const patched = await api.patch(`/v1/links/${on.linkId}`, { attribution: null }).expect(200);
    expect(patched.body.data.link.attribution).toBeNull();
    expect((await visit(`/r/${on.linkId}`)).searchParams.has('ascsubtag')).toBe(false);
  });

  it('should never let a visitor set or replace the sub-id, whatever the spelling', async () => {
    const { api } = await newCreator();
    const link = await createLinkViaApi(api, {
      originalUrl: buildAmazonUrl(),
      forwardQuery: true,
      attribution: true,
    });

    const forwarded = await visit(
      `/r/${link.linkId}?ascsubtag=thief&ASCSUBTAG=thief&ascsubtag[]=thief&subId1=x&color=red`,
    );

    const subIds = forwarded.searchParams.getAll('ascsubtag');
    expect(subIds).toHaveLength(1);
    expect(await storedRecordIds(link.linkId)).toEqual(subIds);
    expect(forwarded.searchParams.has('ASCSUBTAG')).toBe(false);
    expect(forwarded.searchParams.has('subId1')).toBe(false);
    expect(forwarded.searchParams.get('color')).toBe('red');
  });

  it('should refuse an attribution that is not a boolean or null', async () => {
    const { api } = await newCreator();

    const link = await api.post('/v1/links', { originalUrl: buildAmazonUrl(), attribution: 'yes' });
    const settings = await api.patch('/v1/account/settings', { attribution: 1 });
    const empty = await api.patch('/v1/account/settings', {});

    expect([link.status, Object.keys(link.body.error.details)]).toEqual([400, ['attribution']]);
    expect([settings.status, Object.keys(settings.body.error.details)]).toEqual([
      400,
      ['attribution'],
    ]);
    expect(empty.status).toBe(400);
  });
});
