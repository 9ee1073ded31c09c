import { SIGNAL_NAMES } from '../../src/routing/engine/routing-types';
import { buildAmazonUrl, generateAsin } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

/** The tracking parameter each network's routed URL must carry. */
const TRACKING_PARAM: Record<string, string> = {
  awin: 'awc',
  cj: 'cjevent',
  partnerize: 'clickref',
  cuelinks: 'cuelinks_subid',
  involve_asia: 'aff_sub',
  amazon_associates: 'tag',
  flipkart_affiliate: 'affid',
};

interface RouteExpectation {
  outcome: 'routed' | 'fallback';
  reason: string;
  merchantId: string;
  networkId: string;
  region: string;
  host: string;
  utmMedium: string;
}

describe('POST /v1/route (e2e)', () => {
  let t: TestApp;

  const newApi = async (plan: 'publisher' | 'enterprise' = 'publisher'): Promise<ApiClient> =>
    createApiClient(t, await createCreatorWithKey(t.app, { plan }));
  const route = (api: ApiClient, body: Record<string, unknown>) => api.post('/v1/route', body);

  beforeAll(async () => {
    t = await startTestApp({ PROBES_ENABLED: 'false' }); // no outbound probes
  });
  afterAll(() => t.close());

  it('should answer 200 with the [S] decision fields and no trace when includeCrcTrace is omitted', async () => {
    const api = await newApi();
    const asin = generateAsin();

    const response = await route(api, { originalUrl: `https://www.amazon.com/dp/${asin}` });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        redirectUrl: expect.stringMatching(
          new RegExp(`^https://www\\.amazon\\.com/dp/${asin}\\?tag=lpdemo-amazonassociates-`),
        ),
        merchantId: 'amazon',
        networkId: 'amazon_associates',
        region: 'US',
        normalizedEpcUsd: expect.any(Number),
        confidence: expect.any(Number),
        outcome: 'routed',
        reason: 'best_epc',
        canonicalUrl: `https://www.amazon.com/dp/${asin}`,
        deepLinkUsed: true,
        preset: 'default',
      },
    });
    expect(response.body.data.confidence).toBeGreaterThanOrEqual(0.65);
    expect(response.body.data.confidence).toBeLessThanOrEqual(1.1);
    expect(response.body.data.normalizedEpcUsd).toBeGreaterThan(0);
  });

  const routedCases: [string, Record<string, unknown>, RouteExpectation][] = [
    [
      'an amazon.com URL for a US desktop visitor',
      { originalUrl: buildAmazonUrl(), visitorCountry: 'US', deviceType: 'desktop' },
      {
        outcome: 'routed',
        reason: 'best_epc',
        merchantId: 'amazon',
        networkId: 'amazon_associates',
        region: 'US',
        host: 'www.amazon.com',
        utmMedium: 'affiliate',
      },
    ],
    [
      'an amazon.com URL for an IN visitor',
      { originalUrl: buildAmazonUrl(), visitorCountry: 'IN' },
      {
        outcome: 'routed',
        reason: 'best_epc',
        merchantId: 'amazon',
        networkId: 'amazon_associates',
        region: 'IN',
        host: 'www.amazon.in',
        utmMedium: 'affiliate',
      },
    ],
    [
      'an amazon.co.uk URL for a DE mobile visitor with long_form',
      {
        originalUrl: `https://www.amazon.co.uk/gp/aw/d/${generateAsin()}/?tag=creator-21&linkCode=ogi`,
        visitorCountry: 'DE',
        deviceType: 'mobile',
        preset: 'long_form',
      },
      {
        outcome: 'routed',
        reason: 'best_epc',
        merchantId: 'amazon',
        networkId: 'amazon_associates',
        region: 'DE',
        host: 'www.amazon.de',
        utmMedium: 'long_form',
      },
    ],
    [
      'an amazon.com URL for an NZ visitor (no NZ storefront; US and AU ship there)',
      { originalUrl: buildAmazonUrl(), visitorCountry: 'NZ', deviceType: 'tablet' },
      {
        outcome: 'fallback',
        reason: 'visitor_region_missing',
        merchantId: 'amazon',
        networkId: 'amazon_associates',
        region: 'US',
        host: 'www.amazon.com',
        utmMedium: 'affiliate',
      },
    ],
    [
      'an asos URL for a US visitor (only the GLOBAL storefront)',
      {
        originalUrl: 'https://www.asos.com/us/nike/air-force-1/prd/21460744',
        visitorCountry: 'US',
      },
      {
        outcome: 'fallback',
        reason: 'visitor_region_missing',
        merchantId: 'asos',
        networkId: 'partnerize',
        region: 'GLOBAL',
        host: 'www.asos.com',
        utmMedium: 'affiliate',
      },
    ],
    [
      'a myntra URL for an IN mobile visitor with link_in_bio',
      {
        originalUrl: 'https://www.myntra.com/tshirts/roadster/roadster-men-navy/2314183/buy',
        visitorCountry: 'IN',
        deviceType: 'mobile',
        preset: 'link_in_bio',
        category: 'fashion',
      },
      {
        outcome: 'routed',
        reason: 'best_epc',
        merchantId: 'myntra',
        networkId: 'cuelinks',
        region: 'IN',
        host: 'www.myntra.com',
        utmMedium: 'link_in_bio',
      },
    ],
    [
      'a flipkart share link for an IN tablet visitor',
      {
        originalUrl:
          'https://dl.flipkart.com/dl/samsung-galaxy-s24-5g-onyx-black-256-gb/p/itm3469a7107606f?pid=MOBGX2F3RQKKKGKT&affid=someone',
        visitorCountry: 'IN',
        deviceType: 'tablet',
        category: 'mobile',
      },
      {
        outcome: 'routed',
        reason: 'best_epc',
        merchantId: 'flipkart',
        networkId: 'flipkart_affiliate',
        region: 'IN',
        host: 'www.flipkart.com',
        utmMedium: 'affiliate',
      },
    ],
    [
      'an aliexpress URL for a KR visitor',
      {
        originalUrl: 'https://www.aliexpress.com/item/1005006145563212.html',
        visitorCountry: 'KR',
      },
      {
        outcome: 'routed',
        reason: 'best_epc',
        merchantId: 'aliexpress',
        networkId: 'involve_asia',
        region: 'KR',
        host: 'ko.aliexpress.com',
        utmMedium: 'affiliate',
      },
    ],
    [
      'an aliexpress URL for a GB visitor (no GB storefront; GLOBAL serves it)',
      {
        originalUrl: 'https://www.aliexpress.com/item/1005006145563212.html',
        visitorCountry: 'GB',
      },
      {
        outcome: 'fallback',
        reason: 'visitor_region_missing',
        merchantId: 'aliexpress',
        networkId: 'cj',
        region: 'GLOBAL',
        host: 'www.aliexpress.com',
        utmMedium: 'affiliate',
      },
    ],
  ];

  it.each(routedCases)('should route %s', async (_name, body, expected) => {
    const api = await newApi();

    const response = await route(api, body);

    expect(response.status).toBe(200);
    const data = response.body.data;
    expect({
      outcome: data.outcome,
      reason: data.reason,
      merchantId: data.merchantId,
      networkId: data.networkId,
      region: data.region,
    }).toEqual({
      outcome: expected.outcome,
      reason: expected.reason,
      merchantId: expected.merchantId,
      networkId: expected.networkId,
      region: expected.region,
    });
    const redirect = new URL(data.redirectUrl);
    expect(redirect.host).toBe(expected.host);
    expect(redirect.searchParams.get(TRACKING_PARAM[expected.networkId])).toContain('lpdemo-');
    expect(redirect.searchParams.get('utm_medium')).toBe(expected.utmMedium);
    expect(data.preset).toBe(body.preset ?? 'default');
    expect(data.confidence).toBeGreaterThanOrEqual(0.65);
    expect(data.confidence).toBeLessThanOrEqual(1.1);
    expect(data.normalizedEpcUsd).toBeGreaterThan(0);
  });

  const passthroughCases: [string, string, Record<string, unknown>, string | null, string][] = [
    [
      'the domain is not a supported merchant',
      'https://shop.example.com/x?b=2&a=1&c=%7e#frag',
      {},
      null,
      'unsupported_merchant',
    ],
    [
      'the visitor is in a market the merchant is banned from',
      'https://www.aliexpress.com/item/1005006145563212.html?spm=a2g0o.1&sku_id=1',
      { visitorCountry: 'IN' },
      'aliexpress',
      'banned_market',
    ],
    [
      'no storefront of the merchant serves the visitor',
      'https://www.myntra.com/2314183',
      { visitorCountry: 'US' },
      'myntra',
      'no_region_for_market',
    ],
    [
      'the storefront requires passthrough',
      'https://www.apple.com/shop/buy-iphone/iphone-16-pro?cid=x',
      {},
      'apple',
      'passthrough_required',
    ],
    [
      "the merchant's programme is closed",
      'https://www.ikea.com/us/en/p/kallax-shelf-unit-white-80275887/',
      { visitorCountry: 'US' },
      'ikea',
      'programme_closed',
    ],
  ];

  it.each(passthroughCases)(
    'should answer passthrough with the original URL byte for byte when %s',
    async (_name, originalUrl, extra, merchantId, reason) => {
      const api = await newApi();

      const response = await route(api, { originalUrl, ...extra, includeCrcTrace: true });

      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({
        redirectUrl: originalUrl,
        merchantId,
        networkId: null,
        region: null,
        normalizedEpcUsd: 0,
        confidence: 0,
        outcome: 'passthrough',
        reason,
        canonicalUrl: '',
        deepLinkUsed: false,
        preset: 'default',
        crcTrace: expect.objectContaining({
          winner: null,
          alternatives: [],
          signals: [],
          scoringFormula: null,
        }),
      });
    },
  );

  describe('crcTrace', () => {
    it('should explain the decision when includeCrcTrace is true', async () => {
      const api = await newApi();

      const response = await route(api, {
        originalUrl: 'https://www.aliexpress.com/item/1005006145563212.html',
        visitorCountry: 'ES',
        includeCrcTrace: true,
      });

      expect(response.status).toBe(200);
      const { crcTrace: trace, ...decision } = response.body.data;
      expect(decision).toMatchObject({ outcome: 'routed', region: 'ES', networkId: 'awin' });

      expect(trace.winner).toEqual({
        merchantId: 'aliexpress',
        networkId: 'awin',
        region: 'ES',
        routeScore: trace.scoringFormula.finalScore,
        normalizedEpcUsd: trace.scoringFormula.intermediateScore,
        confidence: Math.min(100, Math.round(100 * trace.scoringFormula.confidenceFactor)),
      });
      expect(trace.alternatives).toEqual([
        {
          merchantId: 'aliexpress',
          networkId: 'cj',
          region: 'ES',
          routeScore: expect.any(Number),
          normalizedEpcUsd: expect.any(Number),
          confidence: expect.any(Number),
          whyNotChosen: expect.stringMatching(/^scored \d+\.\d+ USD below the winner$/),
        },
      ]);
      expect(trace.alternatives[0].routeScore).toBeLessThan(trace.winner.routeScore);
      expect(trace.excluded).toEqual(
        expect.arrayContaining([
          { region: 'ES', networkId: 'involve_asia', reason: 'EPC hint is 0 in ES' },
          { region: 'KR', networkId: null, reason: 'region KR does not serve ES' },
          {
            region: 'GLOBAL',
            networkId: null,
            reason: expect.stringContaining('only when no regional storefront serves ES'),
          },
        ]),
      );

      expect(trace.signals.map((signal: { name: string }) => signal.name)).toEqual([
        ...SIGNAL_NAMES,
      ]);
      expect(trace.signals.map((signal: { name: string }) => signal.name)).toEqual([
        'epc_base',
        'trend',
        'fx',
        'device',
        'deeplink',
        'region_match',
        'health',
        'refund',
        'offer',
        'net_trust',
        'category',
        'cod',
        'ua_penalty',
        'utm',
        'availability',
        'deal',
      ]);
      for (const signal of trace.signals) {
        expect(signal).toEqual({
          name: signal.name,
          value: expect.any(Number),
          weight: expect.any(Number),
          label: expect.any(String),
          source: signal.name === 'deal' ? 'creator' : 'essential',
        });
      }

      const { intermediateScore, confidenceFactor, finalScore } = trace.scoringFormula;
      expect(confidenceFactor).toBeGreaterThanOrEqual(0.65);
      expect(confidenceFactor).toBeLessThanOrEqual(1.1);
      expect(finalScore).toBeCloseTo(intermediateScore * confidenceFactor, 12);
      expect(decision.normalizedEpcUsd).toBe(intermediateScore);
      expect(decision.confidence).toBe(confidenceFactor);
      expect(trace).toMatchObject({ preset: 'default', market: 'ES', regionTier: 1 });
    });

    it('should list the alternatives best first, each saying why it lost', async () => {
      const api = await newApi();

      const response = await route(api, {
        originalUrl: 'https://www.aliexpress.com/item/1005006145563212.html',
        includeCrcTrace: true,
      });

      const trace = response.body.data.crcTrace;
      expect(trace.winner).toMatchObject({ region: 'GLOBAL', networkId: 'cj' });
      expect(trace.alternatives.map((alt: { networkId: string }) => alt.networkId)).toEqual([
        'awin',
        'involve_asia',
      ]);
      const scores: number[] = [
        trace.winner.routeScore,
        ...trace.alternatives.map((alt: { routeScore: number }) => alt.routeScore),
      ];
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      for (const alternative of trace.alternatives) {
        expect(alternative.whyNotChosen).toMatch(/below the winner/);
      }
    });

    it.each([
      ['default', 1],
      ['link_in_bio', 1.2],
      ['long_form', 1],
    ])('should weigh the device signal %s for preset %s', async (preset, deviceWeight) => {
      const api = await newApi();

      const response = await route(api, {
        originalUrl: buildAmazonUrl(),
        deviceType: 'mobile',
        preset,
        includeCrcTrace: true,
      });

      const trace = response.body.data.crcTrace;
      expect(trace.preset).toBe(preset);
      const device = trace.signals.find((signal: { name: string }) => signal.name === 'device');
      expect(device.weight).toBe(deviceWeight);
      const { intermediateScore, confidenceFactor, finalScore } = trace.scoringFormula;
      expect(finalScore).toBeCloseTo(intermediateScore * confidenceFactor, 12);
    });

    it.each([[{ includeCrcTrace: false }], [{}]])(
      'should leave crcTrace out when the request has %j',
      async (extra) => {
        const api = await newApi();

        const response = await route(api, { originalUrl: buildAmazonUrl(), ...extra });

        expect(response.status).toBe(200);
        expect(response.body.data).not.toHaveProperty('crcTrace');
      },
    );
  });

  it('should persist no link and count no click', async () => {
    const api = await newApi();
    const accountBefore = await api.get('/v1/account').expect(200);

    for (const body of [
      { originalUrl: buildAmazonUrl(), visitorCountry: 'IN' },
      { originalUrl: 'https://shop.example.com/x' },
      { originalUrl: 'https://www.asos.com/prd/204353838', includeCrcTrace: true },
    ]) {
      await route(api, body).expect(200);
    }

    const links = await api.get('/v1/links').expect(200);
    const accountAfter = await api.get('/v1/account').expect(200);
    expect(links.body.data.pagination.total).toBe(0);
    expect(accountAfter.body.data.clicksUsedThisPeriod).toBe(
      accountBefore.body.data.clicksUsedThisPeriod,
    );
    expect(accountAfter.body.data.clicksRemainingThisPeriod).toBe(
      accountBefore.body.data.clicksRemainingThisPeriod,
    );
  });

  describe('rate limit', () => {
    it('should count POST /route in its own bucket of 120 a minute for a Publisher key', async () => {
      const api = await newApi('publisher');

      const first = await route(api, { originalUrl: buildAmazonUrl() });
      const account = await api.get('/v1/account');

      expect(first.headers['x-ratelimit-limit']).toBe('120');
      expect(first.headers['x-ratelimit-remaining']).toBe('119');
      expect(account.headers['x-ratelimit-limit']).toBe('60');
      expect(account.headers['x-ratelimit-remaining']).toBe('59');
    });

    it('should give an Enterprise key 600 route requests a minute', async () => {
      const api = await newApi('enterprise');

      const response = await route(api, { originalUrl: buildAmazonUrl() });

      expect(response.headers['x-ratelimit-limit']).toBe('600');
      expect(response.headers['x-ratelimit-remaining']).toBe('599');
    });

    it('should refuse the 121st route request in a minute while the general bucket still admits', async () => {
      const api = await newApi('publisher');
      const originalUrl = buildAmazonUrl();
      const statuses: number[] = [];

      for (let i = 0; i < 120; i++) {
        statuses.push((await route(api, { originalUrl })).status);
      }
      const refused = await route(api, { originalUrl });

      expect(statuses.every((status) => status === 200)).toBe(true);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(refused.headers['x-ratelimit-limit']).toBe('120');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const links = await api.get('/v1/links');
      expect(links.status).toBe(200);
      expect(links.headers['x-ratelimit-remaining']).toBe('59');
    });
  });

  describe('validation', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['originalUrl is missing', { originalUrl: undefined }, 'originalUrl', 'must be a URL'],
      [
        'originalUrl is http',
        { originalUrl: 'http://www.amazon.com/dp/B0CHWRXH8B' },
        'originalUrl',
        'https',
      ],
      [
        'originalUrl has 4097 characters',
        { originalUrl: padUrl('https://www.amazon.com/dp/B0CHWRXH8B?pad=', 4097) },
        'originalUrl',
        'at most 4096',
      ],
      [
        'originalUrl carries credentials',
        { originalUrl: 'https://user:secret@www.amazon.com/dp/B0CHWRXH8B' },
        'originalUrl',
        'credentials',
      ],
      ['preset is auto', { preset: 'auto' }, 'preset', 'use default'],
      ['preset is link-in-bio', { preset: 'link-in-bio' }, 'preset', 'use link_in_bio'],
      ['preset is long-form', { preset: 'long-form' }, 'preset', 'use long_form'],
      ['deviceType is ios', { deviceType: 'ios' }, 'deviceType', 'use mobile'],
      ['deviceType is android', { deviceType: 'android' }, 'deviceType', 'use mobile'],
      [
        'the [G] field url is sent',
        { url: 'https://www.amazon.com/dp/B0CHWRXH8B' },
        'url',
        'originalUrl',
      ],
      ['the [G] field country is sent', { country: 'IN' }, 'country', 'visitorCountry'],
      ['the [G] field device is sent', { device: 'android' }, 'device', 'deviceType'],
      ['visitorCountry is UK', { visitorCountry: 'UK' }, 'visitorCountry', 'ISO 3166-1'],
      ['visitorCountry is lower case', { visitorCountry: 'in' }, 'visitorCountry', 'ISO 3166-1'],
      ['category is unknown', { category: 'shoes' }, 'category', 'category must be one of'],
      ['includeCrcTrace is a string', { includeCrcTrace: 'true' }, 'includeCrcTrace', 'boolean'],
      ['a create-only field is sent', { title: 'x' }, 'title', 'not a recognised field'],
      ['passthrough is sent', { passthrough: true }, 'passthrough', 'not a recognised field'],
    ];

    it.each(cases)(
      'should answer 400 VALIDATION_ERROR naming the field when %s',
      async (_name, patch, field, message) => {
        const api = await newApi();

        const response = await route(api, { originalUrl: buildAmazonUrl(), ...patch });

        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          success: false,
          error: {
            code: 'VALIDATION_ERROR',
            message: expect.stringContaining(field),
            details: { [field]: expect.any(Array) },
            requestId: expect.any(String),
          },
        });
        expect(response.body.error.details[field].join(' ')).toContain(message);
      },
    );

    it('should answer 401 UNAUTHORIZED when no API key is sent', async () => {
      const response = await t.http.post('/v1/route').send({ originalUrl: buildAmazonUrl() });

      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
    });
  });
});

/** `prefix` padded with `a` to exactly `length` characters. */
function padUrl(prefix: string, length: number): string {
  return prefix + 'a'.repeat(length - prefix.length);
}
