import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { startTestApp, TestApp } from '../support/test-app';

describe('Merchants (e2e)', () => {
  let t: TestApp;
  let creator: TestCreator;
  const get = (path: string) => t.http.get(path).set('Authorization', creator.authorization);
  const ids = (body: { data: { merchants: { merchantId: string }[] } }) =>
    body.data.merchants.map((merchant) => merchant.merchantId);

  beforeAll(async () => {
    t = await startTestApp();
    creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
  });
  afterAll(() => t.close());

  describe('GET /v1/merchants', () => {
    it('should list all 35 merchants ordered by merchantId with the [S] and [G] summary fields', async () => {
      const response = await get('/v1/merchants').expect(200);
      expect(response.body.data.total).toBe(35);
      const merchantIds = ids(response.body);
      expect(merchantIds).toHaveLength(35);
      expect(merchantIds).toEqual([...merchantIds].sort());
      expect(merchantIds).toEqual(expect.arrayContaining(['amazon', 'zalando', 'bh-photo-video']));
      const amazon = response.body.data.merchants.find(
        (m: { merchantId: string }) => m.merchantId === 'amazon',
      );
      expect(amazon).toEqual({
        merchantId: 'amazon',
        displayName: expect.any(String),
        domains: expect.arrayContaining(['www.amazon.com', 'www.amazon.in']),
        supportedNetworks: [],
        regionCount: expect.any(Number),
        dataConfidenceScore: expect.any(Number),
        lastUpdated: expect.any(String),
        programType: 'direct',
        programStatus: 'open',
        categories: expect.any(Array),
        merchantCapabilities: expect.objectContaining({ multiNetworkRouting: false }),
        regionDefaults: expect.objectContaining({ baseCurrency: expect.any(String) }),
        meta: expect.objectContaining({
          version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}-\d{2}$/),
        }),
      });
      expect(amazon.regionCount).toBeGreaterThanOrEqual(15);
      expect(amazon).not.toHaveProperty('regions');
    });

    it('should filter by network, including in-house programmes', async () => {
      const awin = await get('/v1/merchants?networkId=awin').expect(200);
      expect(awin.body.data.total).toBe(awin.body.data.merchants.length);
      for (const merchant of awin.body.data.merchants)
        expect(merchant.supportedNetworks).toContain('awin');
      expect(ids(awin.body)).not.toContain('amazon');

      const associates = await get('/v1/merchants?networkId=amazon_associates').expect(200);
      expect(ids(associates.body)).toEqual(['amazon']);
    });

    it('should filter by category', async () => {
      const beauty = await get('/v1/merchants?category=beauty').expect(200);
      expect(ids(beauty.body)).toEqual(expect.arrayContaining(['sephora', 'ulta', 'nykaa']));
      for (const merchant of beauty.body.data.merchants)
        expect(merchant.categories).toContain('beauty');
    });

    it('should filter by region code and by GLOBAL', async () => {
      const india = await get('/v1/merchants?region=IN').expect(200);
      expect(ids(india.body)).toEqual(expect.arrayContaining(['amazon', 'flipkart', 'myntra']));
      expect(ids(india.body)).not.toContain('target');
      const global = await get('/v1/merchants?region=GLOBAL').expect(200);
      expect(global.body.data.total).toBeGreaterThanOrEqual(4);
    });

    it('should filter by the country a storefront ships to', async () => {
      const nigeria = await get('/v1/merchants?availableInCountry=NG').expect(200);
      expect(ids(nigeria.body)).toContain('jumia');
      expect(ids(nigeria.body)).not.toContain('target');
      const combined = await get(
        '/v1/merchants?availableInCountry=IN&networkId=cuelinks&category=fashion',
      ).expect(200);
      expect(ids(combined.body)).toEqual(expect.arrayContaining(['myntra']));
    });

    const badQueries: [string, string][] = [
      ['networkId=nope', 'networkId'],
      ['networkId=NETWORK_01', 'networkId'],
      ['category=shoes', 'category'],
      ['region=in', 'region'],
      ['region=IND', 'region'],
      ['availableInCountry=XX', 'availableInCountry'],
      ['availableInCountry=UK', 'availableInCountry'],
      ['unknown=1', 'unknown'],
    ];

    it.each(badQueries)('should answer ?%s with 400 naming %s', async (query, field) => {
      const response = await get(`/v1/merchants?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(response.body.error.details)).toEqual([field]);
    });
  });

  describe('GET /v1/merchants/:id', () => {
    it('should answer the full profile', async () => {
      const response = await get('/v1/merchants/asos').expect(200);
      const { merchant } = response.body.data;
      expect(merchant.merchantId).toBe('asos');
      expect(Object.keys(merchant)).toEqual(
        expect.arrayContaining([
          'description',
          'regions',
          'canonicalization',
          'meta',
          'bannedMarkets',
        ]),
      );
      const region = Object.values(merchant.regions)[0] as Record<string, unknown>;
      expect(Object.keys(region)).toEqual(
        expect.arrayContaining([
          'storefront',
          'baseCurrency',
          'epcHints',
          'trustScore',
          'preferredNetworks',
          'deepLinkSupported',
          'deepLinkMultiplier',
          'deviceBiases',
          'availabilityFlags',
          'categoryMultipliers',
          'refundRateEstimate',
          'codFactor',
          'passthroughRequired',
        ]),
      );
    });

    it.each([['AMAZON'], ['Amazon'], ['no-such-merchant'], ['%20']])(
      'should answer %s with 404 MERCHANT_NOT_FOUND (ids are case-sensitive)',
      async (id) => {
        const response = await get(`/v1/merchants/${id}`);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('MERCHANT_NOT_FOUND');
      },
    );

    it('should require an API key', async () => {
      const response = await t.http.get('/v1/merchants/amazon');
      expect(response.status).toBe(401);
    });
  });
});
