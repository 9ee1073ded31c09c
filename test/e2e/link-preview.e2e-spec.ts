import { buildAmazonUrl, createLinkViaApi, LinkBody } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { edgeVisit, VISITOR_USER_AGENTS } from '../support/edge-visit';
import { startTestApp, TestApp } from '../support/test-app';

type Device = Exclude<keyof typeof VISITOR_USER_AGENTS, 'bot'>;

describe('Link preview (e2e)', () => {
  let t: TestApp;
  let api: ApiClient;
  let link: LinkBody;

  beforeAll(async () => {
    t = await startTestApp({ PROBES_ENABLED: 'false' });
    api = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
    link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
  });
  afterAll(() => t.close());

  /** Where a real visit sends this visitor (a trusted proxy's country header, a browser UA). */
  const visit = async (country: string, device: Device): Promise<string> => {
    const response = await edgeVisit(t, `/r/${link.linkId}`, {
      'User-Agent': VISITOR_USER_AGENTS[device],
      'CF-IPCountry': country,
    });
    expect(response.status).toBe(302);
    return response.headers.location;
  };
  const clicksUsed = async (): Promise<number> =>
    (await api.get('/v1/account').expect(200)).body.data.clicksUsedThisPeriod as number;

  it.each<[string, Device]>([
    ['US', 'desktop'],
    ['IN', 'android'],
    ['GB', 'ios'],
    ['DE', 'desktop'],
    ['BR', 'ios'],
  ])('should send a visitor from %s on %s where a real visit goes', async (country, device) => {
    const response = await api
      .get(`/v1/links/${link.linkId}/preview?country=${country}&device=${device}`)
      .expect(200);

    const { preview } = response.body.data;
    expect(preview.location).toBe(await visit(country, device));
    expect(preview).toMatchObject({ country, device, outcome: expect.any(String) });
    expect(preview.crcTrace).toEqual(expect.objectContaining({ signals: expect.any(Array) }));
  });

  it('should count no click', async () => {
    const before = await clicksUsed();

    for (let i = 0; i < 3; i++) {
      await api.get(`/v1/links/${link.linkId}/preview?country=US`).expect(200);
    }
    await api.get(`/v1/links/${link.linkId}/preview/markets`).expect(200);

    expect(await clicksUsed()).toBe(before);
  });

  it("should answer the matrix of the merchant's markets times the three devices, each as a visit goes", async () => {
    const response = await api.get(`/v1/links/${link.linkId}/preview/markets`).expect(200);

    const { items } = response.body.data;
    const markets = [...new Set(items.map((item: { country: string }) => item.country))];
    expect(markets).toEqual(expect.arrayContaining(['US', 'IN', 'GB', 'DE']));
    expect(items).toHaveLength(markets.length * 3);
    const sample = items.find(
      (item: { country: string; device: string }) => item.country === 'IN' && item.device === 'ios',
    );
    expect(sample.location).toBe(await visit('IN', 'ios'));
    expect(sample).not.toHaveProperty('crcTrace');
  });

  it("should answer 404 LINK_NOT_FOUND for another creator's link", async () => {
    const other = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));

    const response = await other.get(`/v1/links/${link.linkId}/preview?country=US`);

    expect([response.status, response.body.error.code]).toEqual([404, 'LINK_NOT_FOUND']);
  });

  it.each([
    ['an unknown device', 'device=phone', 'device'],
    ['an unknown country', 'country=XX', 'country'],
  ])('should refuse %s with 400 naming the field', async (_name, query, field) => {
    const response = await api.get(`/v1/links/${link.linkId}/preview?${query}`);

    expect(response.status).toBe(400);
    expect(Object.keys(response.body.error.details)).toEqual([field]);
  });
});
