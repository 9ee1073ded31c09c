import { SIGNAL_NAMES } from '../../src/routing/engine/routing-types';
import { createCreatorWithKey } from '../factories/creator.factory';
import {
  buildAmazonUrl,
  buildAsosUrl,
  createLinkViaApi,
  createLinksViaApi,
  generateAsin,
  LinkRequest,
} from '../factories/api-link.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

const REDIRECT_BASE_URL = 'https://go.linkpilot.test';
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SUMMARY_FIELDS = [
  'createdAt',
  'groupId',
  'linkId',
  'linkpilotUrl',
  'merchantId',
  'networkId',
  'originalUrl',
  'passthrough',
  'preset',
  'region',
  'routedUrl',
  'title',
];

describe('Links (e2e)', () => {
  let t: TestApp;

  /** A fresh Publisher creator and key (60 requests a minute: plenty for one test). */
  const newApi = async (): Promise<ApiClient> =>
    createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
  const idsOf = (items: { linkId: string }[]) => items.map((item) => item.linkId);

  beforeAll(async () => {
    // No background probes: they would reach the real merchant sites and move
    // healthStatus/deepLinkStatus while a test compares a link with itself.
    t = await startTestApp({ REDIRECT_BASE_URL, PROBES_ENABLED: 'false' });
  });
  afterAll(() => t.close());

  describe('POST /v1/links', () => {
    it('should answer 201 with the [S] Link and the [G] extras when given a product URL', async () => {
      const api = await newApi();
      const asin = generateAsin();
      const originalUrl = `https://www.amazon.com/dp/${asin}`;

      const response = await api.post('/v1/links', { originalUrl, title: 'Noise-cancelling' });

      expect(response.status).toBe(201);
      expect(response.body.success).toBe(true);
      const { link } = response.body.data;
      expect(link).toEqual({
        linkId: expect.stringMatching(ULID),
        title: 'Noise-cancelling',
        originalUrl,
        canonicalUrl: originalUrl,
        environment: 'live',
        routedUrl: expect.stringMatching(/^https:\/\/www\.amazon\.com\/dp\//),
        linkpilotUrl: `${REDIRECT_BASE_URL}/r/${link.linkId}`,
        merchantId: 'amazon',
        region: 'US',
        networkId: 'amazon_associates',
        preset: 'default',
        passthrough: { enabled: false },
        groupId: null,
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: link.createdAt,
        confidence: expect.any(Number),
        deepLinkUsed: true,
        normalizedEpcUsd: expect.any(Number),
        healthStatus: 'unknown',
        deepLinkStatus: 'unchecked',
        lastHealthCheckAt: null,
        notes: null,
        forwardQuery: false,
        attribution: null,
        outcome: 'routed',
        crcTrace: expect.objectContaining({
          winner: expect.objectContaining({
            merchantId: 'amazon',
            networkId: 'amazon_associates',
            region: 'US',
          }),
          alternatives: expect.any(Array),
          scoringFormula: expect.any(Object),
        }),
      });
      expect(link.linkId).toHaveLength(26);
      expect(link.confidence).toBeGreaterThanOrEqual(65);
      expect(link.confidence).toBeLessThanOrEqual(100);
      expect(link.normalizedEpcUsd).toBeGreaterThan(0);
      expect(link.crcTrace.signals.map((signal: { name: string }) => signal.name)).toEqual([
        ...SIGNAL_NAMES,
      ]);
    });

    it('should canonicalise a messy Amazon URL and add tracking and preset UTM parameters when routing it', async () => {
      const api = await newApi();
      const originalUrl =
        'https://www.amazon.com/Apple-Generation-Cancelling-Transparency-Personalized/dp/B0CHWRXH8B/ref=sr_1_3?crid=2XW5QJ1Z&dib=eyJ2IjoiMSJ9.abc&dib_tag=se&keywords=airpods+pro&qid=1732200000&sprefix=airpods%2Caps%2C171&sr=8-3&th=1&tag=someone-else-20&utm_source=newsletter#customerReviews';

      const link = await createLinkViaApi(api, { originalUrl });

      expect(link.originalUrl).toBe(originalUrl);
      // th=1 is a UI-state flag restating the ASIN of the path: canonicalisation drops it.
      expect(link.canonicalUrl).toBe('https://www.amazon.com/dp/B0CHWRXH8B');
      const routed = new URL(link.routedUrl);
      expect(`${routed.origin}${routed.pathname}`).toBe('https://www.amazon.com/dp/B0CHWRXH8B');
      expect([...routed.searchParams.keys()]).toEqual([
        'tag',
        'utm_source',
        'utm_medium',
        'utm_campaign',
      ]);
      // The creator's own Associates tag replaces the one pasted with the URL.
      expect(routed.searchParams.get('tag')).toMatch(/^lpdemo-amazonassociates-[0-9a-f]{8}$/);
      expect(routed.searchParams.get('utm_source')).toBe('linkpilot');
      expect(routed.searchParams.get('utm_medium')).toBe('affiliate');
      expect(routed.searchParams.get('utm_campaign')).toBe('linkpilot_default');
      expect(routed.hash).toBe('');
    });

    it.each([
      ['default', 'affiliate', 'linkpilot_default'],
      ['link_in_bio', 'link_in_bio', 'linkpilot_link_in_bio'],
      ['long_form', 'long_form', 'linkpilot_long_form'],
    ])(
      'should add the UTM values of the %s preset when no utmOverride is given',
      async (preset, medium, campaign) => {
        const api = await newApi();

        const link = await createLinkViaApi(api, { preset });

        expect(link.preset).toBe(preset);
        const params = new URL(link.routedUrl).searchParams;
        expect({
          source: params.get('utm_source'),
          medium: params.get('utm_medium'),
          campaign: params.get('utm_campaign'),
          term: params.get('utm_term'),
        }).toEqual({ source: 'linkpilot', medium, campaign, term: null });
      },
    );

    it('should let utmOverride win key by key over the preset UTM values when both apply', async () => {
      const api = await newApi();
      const utmOverride = { utm_source: 'newsletter', utm_term: 'air pods & cases' };

      const link = await createLinkViaApi(api, { preset: 'link_in_bio', utmOverride });

      const params = new URL(link.routedUrl).searchParams;
      expect(params.get('utm_source')).toBe('newsletter');
      expect(params.get('utm_medium')).toBe('link_in_bio');
      expect(params.get('utm_campaign')).toBe('linkpilot_link_in_bio');
      expect(params.get('utm_term')).toBe('air pods & cases');
      expect(params.get('utm_content')).toBeNull();
      expect(link.utmOverride).toEqual(utmOverride);
    });

    it("should keep a network's own tracking parameter when utmOverride names the same key", async () => {
      const api = await newApi();

      const link = await createLinkViaApi(api, {
        originalUrl: buildAsosUrl(),
        networkOverride: 'awin',
        utmOverride: { utm_source: 'mine', utm_campaign: 'spring' },
      });

      const params = new URL(link.routedUrl).searchParams;
      expect(link.networkId).toBe('awin');
      expect(params.get('awc')).toMatch(/^lp_lpdemo-awin-/);
      expect(params.getAll('utm_source')).toEqual(['awin']);
      expect(params.get('utm_campaign')).toBe('spring');
    });

    it.each([
      [
        'https://www.amazon.com/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12',
        'Apple AirPods Pro 2nd Generation',
      ],
      [
        'https://www.ikea.com/us/en/p/kallax-shelf-unit-white-80275887/',
        'Kallax shelf unit white 80275887',
      ],
      ['https://www.amazon.com/dp/B0BDHWDR13', 'Amazon product'],
      ['https://shop.example.com/p/12345', 'shop.example.com product'],
    ])('should take the title from %s when no title is given', async (originalUrl, title) => {
      const api = await newApi();

      const link = await createLinkViaApi(api, { originalUrl });

      expect(link.title).toBe(title);
    });

    it('should route to the amazon.in storefront when an IN visitor opens an amazon.com URL', async () => {
      const api = await newApi();
      const asin = generateAsin();

      const link = await createLinkViaApi(api, {
        originalUrl: `https://www.amazon.com/dp/${asin}`,
        visitorCountry: 'IN',
      });

      expect(link.region).toBe('IN');
      expect(link.networkId).toBe('amazon_associates');
      expect(link.routedUrl).toMatch(new RegExp(`^https://www\\.amazon\\.in/dp/${asin}\\?tag=`));
      expect(link.outcome).toBe('routed');
    });

    it('should accept every value at its upper bound', async () => {
      const api = await newApi();
      const originalUrl = padUrl(`${buildAmazonUrl()}?pad=`, 4096);

      const link = await createLinkViaApi(api, {
        originalUrl,
        title: 't'.repeat(300),
        passthrough: true,
        passthroughReason: 'r'.repeat(500),
        utmOverride: { utm_content: 'u'.repeat(200) },
        groupId: 'g'.repeat(128),
        notes: 'n'.repeat(1000),
        category: 'electronics',
      });

      expect(link.originalUrl).toHaveLength(4096);
      expect(link.routedUrl).toBe(originalUrl);
      expect(link.title).toHaveLength(300);
      expect(link.passthrough.reason).toHaveLength(500);
      expect(link.groupId).toHaveLength(128);
      expect(link.notes).toHaveLength(1000);
      expect(link.category).toBe('electronics');
    });

    it('should keep groupId null (All Links) when groupId is null', async () => {
      const api = await newApi();

      const link = await createLinkViaApi(api, { groupId: null });

      expect(link.groupId).toBeNull();
    });

    describe('validation', () => {
      const cases: [string, LinkRequest, string, string][] = [
        ['originalUrl is missing', { originalUrl: undefined }, 'originalUrl', 'must be a URL'],
        ['originalUrl is not a string', { originalUrl: 42 }, 'originalUrl', 'must be a URL'],
        [
          'originalUrl is not absolute',
          { originalUrl: '/dp/B0CHWRXH8B' },
          'originalUrl',
          'absolute',
        ],
        [
          'originalUrl is http',
          { originalUrl: 'http://www.amazon.com/dp/B0CHWRXH8B' },
          'originalUrl',
          'https',
        ],
        [
          'originalUrl is ftp',
          { originalUrl: 'ftp://www.amazon.com/dp/B0CHWRXH8B' },
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
        ...[
          'https://169.254.169.254/latest/meta-data/',
          'https://10.0.0.1/x',
          'https://2130706433/x',
          'https://0x7f.0.0.1/x',
          'https://[::ffff:192.168.0.1]/x',
        ].map((originalUrl): [string, LinkRequest, string, string] => [
          `originalUrl is ${originalUrl}, not a public address`,
          { originalUrl },
          'originalUrl',
          'must not point to a private',
        ]),
        ['title is empty', { title: '' }, 'title', 'title'],
        ['title has 301 characters', { title: 't'.repeat(301) }, 'title', '300'],
        ['title is a number', { title: 7 }, 'title', 'string'],
        ['preset is auto', { preset: 'auto' }, 'preset', 'use default'],
        ['preset is link-in-bio', { preset: 'link-in-bio' }, 'preset', 'use link_in_bio'],
        ['preset is long-form', { preset: 'long-form' }, 'preset', 'use long_form'],
        ['preset is unknown', { preset: 'fastest' }, 'preset', 'default, link_in_bio, long_form'],
        ['deviceType is ios', { deviceType: 'ios' }, 'deviceType', 'use mobile'],
        ['deviceType is android', { deviceType: 'android' }, 'deviceType', 'use mobile'],
        [
          'the [G] field url is sent',
          { url: 'https://www.amazon.com/dp/B0C' },
          'url',
          'originalUrl',
        ],
        ['the [G] field country is sent', { country: 'IN' }, 'country', 'visitorCountry'],
        ['the [G] field device is sent', { device: 'ios' }, 'device', 'deviceType'],
        ['an unknown field is sent', { shortcode: 'abc' }, 'shortcode', 'not a recognised field'],
        ['visitorCountry is UK', { visitorCountry: 'UK' }, 'visitorCountry', 'ISO 3166-1'],
        ['visitorCountry is lower case', { visitorCountry: 'in' }, 'visitorCountry', 'ISO 3166-1'],
        ['visitorCountry has 3 letters', { visitorCountry: 'IND' }, 'visitorCountry', 'ISO 3166-1'],
        ['category is unknown', { category: 'shoes' }, 'category', 'category must be one of'],
        ['passthrough is a string', { passthrough: 'yes' }, 'passthrough', 'boolean'],
        [
          'passthrough is true without a reason',
          { passthrough: true },
          'passthroughReason',
          'required when passthrough is true',
        ],
        [
          'passthroughReason is empty',
          { passthrough: true, passthroughReason: '' },
          'passthroughReason',
          'passthroughReason',
        ],
        [
          'passthroughReason has 501 characters',
          { passthrough: true, passthroughReason: 'r'.repeat(501) },
          'passthroughReason',
          '500',
        ],
        [
          'utm_source has 201 characters',
          { utmOverride: { utm_source: 's'.repeat(201) } },
          'utmOverride.utm_source',
          '200',
        ],
        [
          'utm_content has 201 characters',
          { utmOverride: { utm_content: 'c'.repeat(201) } },
          'utmOverride.utm_content',
          '200',
        ],
        [
          'utmOverride has an unknown key',
          { utmOverride: { utm_id: 'x' } },
          'utmOverride.utm_id',
          'not a recognised field',
        ],
        ['utmOverride is a string', { utmOverride: 'utm_source=x' }, 'utmOverride', 'object'],
        ['groupId has 129 characters', { groupId: 'g'.repeat(129) }, 'groupId', '128'],
        ['groupId is empty', { groupId: '' }, 'groupId', 'groupId'],
        ['networkOverride is unknown', { networkOverride: 'paypal' }, 'networkOverride', 'awin'],
        [
          'networkOverride is a schema placeholder',
          { networkOverride: 'NETWORK_01' },
          'networkOverride',
          'awin',
        ],
        [
          'networkOverride has an unknown field',
          { networkOverride: { networkId: 'awin', priority: 1 } },
          'networkOverride',
          'priority',
        ],
        [
          'networkOverride.expiresAt is not a date-time',
          { networkOverride: { networkId: 'awin', expiresAt: 'tomorrow' } },
          'networkOverride',
          'expiresAt',
        ],
        [
          'networkOverride.reason has 501 characters',
          { networkOverride: { networkId: 'awin', reason: 'r'.repeat(501) } },
          'networkOverride',
          '500',
        ],
        ['notes has 1001 characters', { notes: 'n'.repeat(1001) }, 'notes', '1000'],
      ];

      it.each(cases)(
        'should answer 400 VALIDATION_ERROR naming the field when %s',
        async (_name, patch, field, message) => {
          const api = await newApi();

          const response = await api.post('/v1/links', { originalUrl: buildAmazonUrl(), ...patch });

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

      it('should answer 400 VALIDATION_ERROR when the body is not valid JSON', async () => {
        const api = await newApi();

        const response = await api
          .post('/v1/links')
          .set('Content-Type', 'application/json')
          .send('{"originalUrl": ');

        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
      });

      it('should create nothing when the request is refused', async () => {
        const api = await newApi();
        await api.post('/v1/links', { originalUrl: buildAmazonUrl(), preset: 'auto' }).expect(400);

        const list = await api.get('/v1/links').expect(200);

        expect(list.body.data.pagination.total).toBe(0);
      });

      it('should answer 401 UNAUTHORIZED when no API key is sent', async () => {
        const response = await t.http.post('/v1/links').send({ originalUrl: buildAmazonUrl() });

        expect(response.status).toBe(401);
        expect(response.body.error.code).toBe('UNAUTHORIZED');
      });
    });

    describe('networkOverride', () => {
      const refused: [string, string, unknown][] = [
        [
          'the network has a zero EPC hint in the region',
          'https://www.aliexpress.us/item/3256805952327548.html',
          'awin',
        ],
        [
          'the network does not carry a direct merchant',
          'https://www.amazon.com/dp/B0CHWRXH8B',
          'awin',
        ],
        [
          "the network is not among the merchant's supported networks",
          'https://www.myntra.com/2314183',
          'cj',
        ],
        [
          'the object form names a network without a positive hint',
          'https://www.aliexpress.us/item/3256805952327548.html',
          { networkId: 'involve_asia', reason: 'private deal' },
        ],
      ];

      it.each(refused)(
        'should answer 400 NETWORK_OVERRIDE_UNAVAILABLE when %s',
        async (_name, originalUrl, networkOverride) => {
          const api = await newApi();

          const response = await api.post('/v1/links', { originalUrl, networkOverride });

          expect(response.status).toBe(400);
          expect(response.body.error).toEqual({
            code: 'NETWORK_OVERRIDE_UNAVAILABLE',
            message: expect.stringContaining('no positive EPC hint'),
            requestId: expect.any(String),
          });
          const list = await api.get('/v1/links').expect(200);
          expect(list.body.data.pagination.total).toBe(0);
        },
      );

      it.each([
        ['https://www.aliexpress.us/item/3256805952327548.html', 'cj', 'US'],
        ['https://www.asos.com/prd/204353838', 'awin', 'GLOBAL'],
        ['https://www.myntra.com/2314183', 'involve_asia', 'IN'],
      ])(
        'should pin %s to %s when that network has a positive hint there',
        async (originalUrl, networkId, region) => {
          const api = await newApi();

          const link = await createLinkViaApi(api, { originalUrl, networkOverride: networkId });

          expect(link).toMatchObject({
            networkId,
            region,
            networkOverride: { networkId },
            outcome: 'routed',
          });
          expect(link.crcTrace).toMatchObject({
            networkOverride: { networkId, status: 'applied' },
          });
        },
      );

      it('should keep the object form with its reason and expiry when the pin is valid', async () => {
        const api = await newApi();
        const networkOverride = {
          networkId: 'awin',
          expiresAt: '2099-01-01T00:00:00.000Z',
          reason: 'private deal with Awin',
        };

        const link = await createLinkViaApi(api, { originalUrl: buildAsosUrl(), networkOverride });

        expect(link.networkOverride).toEqual(networkOverride);
        expect(link.networkId).toBe('awin');
      });

      it('should answer 400 VALIDATION_ERROR when the pin has already expired', async () => {
        const api = await newApi();

        const response = await api.post('/v1/links', {
          originalUrl: buildAsosUrl(),
          networkOverride: { networkId: 'awin', expiresAt: '2001-01-01T00:00:00Z' },
        });

        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
        expect(Object.keys(response.body.error.details)).toEqual(['networkOverride.expiresAt']);
      });
    });
  });

  describe('passthrough', () => {
    /** Typed URL -> the WHATWG serialisation stored and served (README: URLs). */
    const oddUrls: [string, string][] = [
      ['https://shop.example.com/x', 'https://shop.example.com/x'],
      ['https://shop.example.com/x?b=2&a=1&b=1&A=3', 'https://shop.example.com/x?b=2&a=1&b=1&A=3'],
      [
        'https://shop.example.com/a%2Fb/%7euser/?q=%E2%9C%93&empty=&flag#frag',
        'https://shop.example.com/a%2Fb/%7euser/?q=%E2%9C%93&empty=&flag#frag',
      ],
      [
        'https://SHOP.Example.COM:443/Path/../Other/./p?utm_source=keep&z=%zz',
        'https://shop.example.com/Other/p?utm_source=keep&z=%zz',
      ],
      [
        'https://shop.example.com/caf\u00e9?q=na\u00efve&x=a+b%20c',
        'https://shop.example.com/caf%C3%A9?q=na%C3%AFve&x=a+b%20c',
      ],
      ['https://shop.example.com/?', 'https://shop.example.com/?'],
    ];

    it.each(oddUrls)(
      'should serve %s as passthrough in its serialisation (%s), query untouched, when its domain is not a supported merchant',
      async (typedUrl, originalUrl) => {
        const api = await newApi();

        const link = await createLinkViaApi(api, { originalUrl: typedUrl });

        expect(link).toMatchObject({
          originalUrl,
          routedUrl: originalUrl,
          canonicalUrl: '',
          merchantId: null,
          region: null,
          networkId: null,
          outcome: 'passthrough',
          passthrough: {
            enabled: true,
            reason: expect.stringMatching(/^Unsupported merchant: shop\.example\.com is not/),
            enabledAt: link.createdAt,
          },
        });
      },
    );

    it.each([
      [
        'apple (passthroughRequired storefront)',
        'https://www.apple.com/shop/buy-iphone/iphone-16-pro?afid=p238%7Csx3N&cid=aos-us-aff-ir',
        'apple',
        'forbids',
      ],
      [
        'ikea (closed programme)',
        'https://www.ikea.com/us/en/p/kallax-shelf-unit-white-80275887/?utm_source=pinterest',
        'ikea',
        'closed',
      ],
    ])(
      'should make a link passthrough and refuse to turn it off when the merchant is %s',
      async (_name, originalUrl, merchantId, reason) => {
        const api = await newApi();
        const link = await createLinkViaApi(api, { originalUrl });
        expect(link).toMatchObject({
          routedUrl: originalUrl,
          canonicalUrl: '',
          merchantId,
          networkId: null,
          passthrough: { enabled: true, reason: expect.stringContaining(reason) },
        });

        const patched = await api.patch(`/v1/links/${link.linkId}`, { passthrough: false });

        expect(patched.status).toBe(400);
        expect(patched.body.error.code).toBe('VALIDATION_ERROR');
        expect(Object.keys(patched.body.error.details)).toEqual(['passthrough']);
        const after = await api.get(`/v1/links/${link.linkId}`).expect(200);
        expect(after.body.data.link).toEqual(link);
      },
    );

    it('should refuse to turn passthrough off with UNSUPPORTED_MERCHANT when the domain is not a merchant', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api, { originalUrl: 'https://shop.example.com/x' });

      const patched = await api.patch(`/v1/links/${link.linkId}`, { passthrough: false });

      expect(patched.status).toBe(400);
      expect(patched.body.error.code).toBe('UNSUPPORTED_MERCHANT');
      const after = await api.get(`/v1/links/${link.linkId}`).expect(200);
      expect(after.body.data.link.passthrough.enabled).toBe(true);
    });

    it('should route an App Store link of the same merchant when its storefront allows it', async () => {
      const api = await newApi();

      const link = await createLinkViaApi(api, {
        originalUrl:
          'https://apps.apple.com/gb/app/spotify-music-and-podcasts/id324684580?mt=8&uo=4',
      });

      expect(link).toMatchObject({
        merchantId: 'apple',
        region: 'GLOBAL',
        networkId: 'partnerize',
        canonicalUrl: 'https://apps.apple.com/gb/app/id324684580',
        passthrough: { enabled: false },
      });
    });

    it('should serve the original URL when created with passthrough, and keep it when passthrough is turned off', async () => {
      const api = await newApi();
      const originalUrl = `https://www.amazon.com/Some-Gadget/dp/${generateAsin()}/ref=sr_1_1?tag=other-20&utm_source=x&th=1`;

      const link = await createLinkViaApi(api, {
        originalUrl,
        passthrough: true,
        passthroughReason: 'Merchant asked for untouched links',
      });
      expect(link).toMatchObject({
        routedUrl: originalUrl,
        canonicalUrl: '',
        merchantId: 'amazon',
        region: null,
        networkId: null,
        outcome: 'passthrough',
        passthrough: {
          enabled: true,
          reason: 'Merchant asked for untouched links',
          enabledAt: link.createdAt,
        },
      });

      await api.patch(`/v1/links/${link.linkId}`, { preset: 'long_form' }).expect(200);
      const off = await api.patch(`/v1/links/${link.linkId}`, { passthrough: false });

      // SPEC lifecycle: routing is not re-evaluated; a new create is needed for fresh routing.
      expect(off.status).toBe(200);
      expect(off.body.data.link).toMatchObject({
        routedUrl: originalUrl,
        canonicalUrl: '',
        region: null,
        networkId: null,
        preset: 'long_form',
        outcome: 'passthrough',
      });
      expect(off.body.data.link.passthrough).toEqual({ enabled: false });
    });

    it('should require a reason to turn passthrough on and then record when it went on', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api);

      const noReason = await api.patch(`/v1/links/${link.linkId}`, { passthrough: true });
      expect(noReason.status).toBe(400);
      expect(noReason.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(noReason.body.error.details)).toEqual(['passthroughReason']);

      const before = Date.now();
      const on = await api.patch(`/v1/links/${link.linkId}`, {
        passthrough: true,
        passthroughReason: 'Testing the original page',
      });

      expect(on.status).toBe(200);
      const updated = on.body.data.link;
      expect(updated).toMatchObject({
        routedUrl: link.originalUrl,
        canonicalUrl: '',
        networkId: null,
        passthrough: { enabled: true, reason: 'Testing the original page' },
      });
      expect(Date.parse(updated.passthrough.enabledAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(updated.passthrough.enabledAt).toMatch(ISO_MS);
    });

    it('should answer 400 when passthroughReason is sent with passthrough false', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api);

      const response = await api.patch(`/v1/links/${link.linkId}`, {
        passthrough: false,
        passthroughReason: 'why not',
      });

      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(response.body.error.details)).toEqual(['passthroughReason']);
    });

    it('should update only the reason when passthrough is already on', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api, { passthrough: true, passthroughReason: 'first' });

      const response = await api.patch(`/v1/links/${link.linkId}`, {
        passthroughReason: 'second',
      });

      expect(response.status).toBe(200);
      expect(response.body.data.link.passthrough).toEqual({
        enabled: true,
        reason: 'second',
        enabledAt: link.passthrough.enabledAt,
      });
    });
  });

  describe('GET /v1/links', () => {
    it('should list LinkSummary items newest first', async () => {
      const api = await newApi();
      const links = await createLinksViaApi(api, [
        { category: 'electronics' },
        { originalUrl: buildAsosUrl() },
        {},
      ]);

      const response = await api.get('/v1/links').expect(200);

      const { items } = response.body.data;
      expect(idsOf(items)).toEqual(idsOf([...links].reverse()));
      for (const item of items) {
        expect(
          Object.keys(item)
            .filter((key) => key !== 'category')
            .sort(),
        ).toEqual(SUMMARY_FIELDS);
      }
      expect(items[2]).toEqual({
        linkId: links[0].linkId,
        title: links[0].title,
        originalUrl: links[0].originalUrl,
        routedUrl: links[0].routedUrl,
        linkpilotUrl: links[0].linkpilotUrl,
        merchantId: 'amazon',
        region: 'US',
        networkId: 'amazon_associates',
        preset: 'default',
        category: 'electronics',
        passthrough: { enabled: false },
        groupId: null,
        createdAt: links[0].createdAt,
      });
    });

    it('should answer 25 items and the pagination meta when no limit is given', async () => {
      const api = await newApi();
      await createLinksViaApi(
        api,
        Array.from({ length: 26 }, () => ({})),
      );

      const response = await api.get('/v1/links').expect(200);

      expect(response.body.data.items).toHaveLength(25);
      expect(response.body.data.pagination).toEqual({
        page: 1,
        limit: 25,
        total: 26,
        totalPages: 2,
        hasNextPage: true,
        hasPrevPage: false,
      });
    });

    it('should page through the links when page and limit are given', async () => {
      const api = await newApi();
      const newestFirst = idsOf(
        (
          await createLinksViaApi(
            api,
            Array.from({ length: 7 }, () => ({})),
          )
        ).reverse(),
      );
      const pages: [number, string[], boolean, boolean][] = [
        [1, newestFirst.slice(0, 3), true, false],
        [2, newestFirst.slice(3, 6), true, true],
        [3, newestFirst.slice(6), false, true],
        [4, [], false, true],
        [99, [], false, true],
      ];

      for (const [page, ids, hasNextPage, hasPrevPage] of pages) {
        const response = await api.get(`/v1/links?page=${page}&limit=3`).expect(200);
        expect({ page, ids: idsOf(response.body.data.items) }).toEqual({ page, ids });
        expect(response.body.data.pagination).toEqual({
          page,
          limit: 3,
          total: 7,
          totalPages: 3,
          hasNextPage,
          hasPrevPage,
        });
      }
    });

    it('should answer an empty first page when the creator has no links', async () => {
      const api = await newApi();

      const response = await api.get('/v1/links').expect(200);

      expect(response.body.data).toEqual({
        items: [],
        pagination: {
          page: 1,
          limit: 25,
          total: 0,
          totalPages: 0,
          hasNextPage: false,
          hasPrevPage: false,
        },
      });
    });

    // Each case: the links to create (oldest first), the query, and which of them it returns
    // (as indexes into the created links, newest first).
    const filterCases: [string, LinkRequest[], string, number[]][] = [
      ['merchantId', [{}, { originalUrl: buildAsosUrl() }, {}], 'merchantId=amazon', [2, 0]],
      [
        'networkId',
        [
          { originalUrl: buildAsosUrl() },
          { originalUrl: buildAsosUrl(), networkOverride: 'awin' },
          {},
        ],
        'networkId=awin',
        [1],
      ],
      [
        'networkId, leaving out a passthrough link that serves no network',
        [{}, { passthrough: true, passthroughReason: 'creator wants the original' }],
        'networkId=amazon_associates',
        [0],
      ],
      [
        'preset',
        [{ preset: 'long_form' }, { preset: 'link_in_bio' }, {}, { preset: 'long_form' }],
        'preset=long_form',
        [3, 0],
      ],
      [
        'groupId',
        [{ groupId: 'summer' }, { groupId: 'summer-2' }, {}, { groupId: 'Summer' }],
        'groupId=summer',
        [0],
      ],
      [
        'passthrough=true',
        [
          {},
          { passthrough: true, passthroughReason: 'original page' },
          { originalUrl: 'https://shop.example.com/x' },
        ],
        'passthrough=true',
        [2, 1],
      ],
      [
        'passthrough=false',
        [
          {},
          { passthrough: true, passthroughReason: 'original page' },
          { originalUrl: 'https://shop.example.com/x' },
        ],
        'passthrough=false',
        [0],
      ],
      [
        'search over the title, case-insensitive',
        [{ title: 'SUMMER sale' }, { title: 'winter coat' }, { title: 'Endless summertime' }],
        'search=Summer',
        [2, 0],
      ],
      [
        'search over the original URL, case-insensitive',
        [{ originalUrl: 'https://www.amazon.com/dp/B0SEARCHZ1', title: 'one' }, { title: 'two' }],
        'search=b0searchz1',
        [0],
      ],
      [
        'search with % taken literally',
        [{ title: '50% off today' }, { title: '500 off today' }],
        `search=${encodeURIComponent('50%')}`,
        [0],
      ],
      [
        'search with _ taken literally',
        [{ title: 'usb_c hub' }, { title: 'usbxc hub' }],
        'search=usb_c',
        [0],
      ],
      [
        'search with a backslash taken literally',
        [{ title: 'path a\\b' }, { title: 'path ab' }],
        `search=${encodeURIComponent('a\\b')}`,
        [0],
      ],
      [
        'merchantId and preset together',
        [{ preset: 'long_form' }, { originalUrl: buildAsosUrl(), preset: 'long_form' }, {}],
        'merchantId=amazon&preset=long_form',
        [0],
      ],
    ];

    it.each(filterCases)('should filter by %s', async (_name, requests, query, expectedIndexes) => {
      const api = await newApi();
      const links = await createLinksViaApi(api, requests);

      const response = await api.get(`/v1/links?${query}`).expect(200);

      expect(idsOf(response.body.data.items)).toEqual(
        expectedIndexes.map((index) => links[index].linkId),
      );
      expect(response.body.data.pagination.total).toBe(expectedIndexes.length);
    });

    it('should treat createdAfter and createdBefore as exclusive when given values read from the API', async () => {
      const api = await newApi();
      const [first, second, third] = await createLinksViaApi(api, [{}, {}, {}]);
      const query = (params: Record<string, string>) =>
        api.get(`/v1/links?${new URLSearchParams(params).toString()}`).expect(200);

      const after = await query({ createdAfter: first.createdAt });
      const before = await query({ createdBefore: third.createdAt });
      const between = await query({
        createdAfter: first.createdAt,
        createdBefore: third.createdAt,
      });
      const none = await query({ createdAfter: third.createdAt });

      expect(idsOf(after.body.data.items)).toEqual([third.linkId, second.linkId]);
      expect(idsOf(before.body.data.items)).toEqual([second.linkId, first.linkId]);
      expect(idsOf(between.body.data.items)).toEqual([second.linkId]);
      expect(none.body.data.items).toEqual([]);
    });

    it("should never list another creator's links", async () => {
      const mine = await newApi();
      const theirs = await newApi();
      const [link] = await createLinksViaApi(mine, [{}]);
      await createLinksViaApi(theirs, [{}, {}]);

      const response = await mine.get('/v1/links').expect(200);

      expect(idsOf(response.body.data.items)).toEqual([link.linkId]);
    });

    const badQueries: [string, string][] = [
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=1.5', 'page'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['networkId=NETWORK_01', 'networkId'],
      ['preset=auto', 'preset'],
      ['createdAfter=yesterday', 'createdAfter'],
      ['createdBefore=2026-13-01T00:00:00Z', 'createdBefore'],
      [`search=${'s'.repeat(201)}`, 'search'],
      [`groupId=${'g'.repeat(129)}`, 'groupId'],
      ['passthrough=yes', 'passthrough'],
      ['sort=createdAt', 'sort'],
    ];

    it.each(badQueries)(
      'should answer ?%s with 400 VALIDATION_ERROR naming %s',
      async (query, field) => {
        const api = await newApi();

        const response = await api.get(`/v1/links?${query}`);

        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
        expect(Object.keys(response.body.error.details)).toEqual([field]);
      },
    );

    it('should accept limit=1 and limit=100', async () => {
      const api = await newApi();
      await createLinksViaApi(api, [{}, {}]);

      const one = await api.get('/v1/links?limit=1').expect(200);
      const hundred = await api.get('/v1/links?limit=100').expect(200);

      expect(one.body.data.items).toHaveLength(1);
      expect(one.body.data.pagination).toMatchObject({ totalPages: 2, hasNextPage: true });
      expect(hundred.body.data.items).toHaveLength(2);
    });
  });

  describe('GET /v1/links/:id', () => {
    it('should answer the full link with its routing trace', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api, {
        originalUrl: buildAsosUrl(),
        category: 'fashion',
      });

      const response = await api.get(`/v1/links/${link.linkId}`).expect(200);

      expect(response.body).toEqual({ success: true, data: { link } });
    });
  });

  describe('unknown ids', () => {
    const unknownIds = [
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      '01arz3ndektsv4rrffq69g5fav',
      'nope',
      // Fastify's default maxParamLength is 100: a longer id is refused before routing.
      'x'.repeat(100),
      '%20',
      '%00',
      encodeURIComponent("1' OR '1'='1"),
      encodeURIComponent('caf\u00e9'),
    ];
    const methods: ['GET' | 'PATCH' | 'DELETE'][] = [['GET'], ['PATCH'], ['DELETE']];

    describe.each(methods)('%s /v1/links/:id', (method) => {
      it.each(
        unknownIds.map((id) => [
          id.length > 40 ? `${id.slice(0, 20)}… (${id.length} chars)` : id,
          id,
        ]),
      )('should answer 404 LINK_NOT_FOUND when the id is %s', async (_label, id) => {
        const api = await newApi();
        await createLinkViaApi(api);

        const response = await send(api, method, `/v1/links/${id}`);

        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('LINK_NOT_FOUND');
      });
    });

    it("should answer 404 to every method on another creator's link and leave it unchanged", async () => {
      const owner = await newApi();
      const intruder = await newApi();
      const link = await createLinkViaApi(owner, { title: 'Mine', groupId: 'private' });
      const path = `/v1/links/${link.linkId}`;

      const responses = [
        await intruder.get(path),
        await intruder.patch(path, { title: 'Stolen' }),
        await intruder.delete(path),
      ];

      expect(responses.map((r) => [r.status, r.body.error?.code])).toEqual([
        [404, 'LINK_NOT_FOUND'],
        [404, 'LINK_NOT_FOUND'],
        [404, 'LINK_NOT_FOUND'],
      ]);
      const after = await owner.get(path).expect(200);
      expect(after.body.data.link).toEqual(link);
    });
  });

  describe('PATCH /v1/links/:id', () => {
    const fullRequest = (): LinkRequest => ({
      originalUrl: buildAsosUrl(),
      title: 'Linen shirt',
      category: 'fashion',
      groupId: 'summer',
      utmOverride: { utm_campaign: 'spring' },
      networkOverride: 'awin',
      notes: 'ask for a code',
    });

    it('should change only the fields present', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api, fullRequest());

      const response = await api.patch(`/v1/links/${link.linkId}`, { title: 'Oxford shirt' });

      expect(response.status).toBe(200);
      const updated = response.body.data.link;
      const { title: _title, updatedAt: _updatedAt, ...unchanged } = link;
      expect(updated).toMatchObject({ ...unchanged, title: 'Oxford shirt' });
      expect(Object.keys(updated).sort()).toEqual(Object.keys(link).sort());
      expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(link.updatedAt));
      const reread = await api.get(`/v1/links/${link.linkId}`).expect(200);
      expect(reread.body.data.link).toEqual(updated);
    });

    it('should remove category, groupId, utmOverride, networkOverride and notes when they are null', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api, fullRequest());

      const response = await api.patch(`/v1/links/${link.linkId}`, {
        category: null,
        groupId: null,
        utmOverride: null,
        networkOverride: null,
        notes: null,
      });

      expect(response.status).toBe(200);
      const updated = response.body.data.link;
      expect(updated).not.toHaveProperty('category');
      expect(updated).not.toHaveProperty('utmOverride');
      expect(updated).not.toHaveProperty('networkOverride');
      expect(updated).toMatchObject({ groupId: null, notes: null, title: 'Linen shirt' });
      // Routing is not re-run: the route chosen at creation stays.
      expect(updated.routedUrl).toBe(link.routedUrl);
      expect(updated.networkId).toBe('awin');
      const reread = await api.get(`/v1/links/${link.linkId}`).expect(200);
      expect(reread.body.data.link).toEqual(updated);
    });

    it('should set the fields when given values', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api, { originalUrl: buildAsosUrl() });

      const response = await api.patch(`/v1/links/${link.linkId}`, {
        category: 'accessories',
        groupId: 'autumn',
        utmOverride: { utm_source: 'blog' },
        networkOverride: { networkId: 'awin', reason: 'better deal' },
        notes: 'renegotiate in May',
      });

      expect(response.status).toBe(200);
      expect(response.body.data.link).toMatchObject({
        category: 'accessories',
        groupId: 'autumn',
        utmOverride: { utm_source: 'blog' },
        networkOverride: { networkId: 'awin', reason: 'better deal' },
        notes: 'renegotiate in May',
        routedUrl: link.routedUrl,
      });
    });

    it('should keep routedUrl when the preset changes', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api);

      const response = await api.patch(`/v1/links/${link.linkId}`, { preset: 'link_in_bio' });

      expect(response.status).toBe(200);
      expect(response.body.data.link).toMatchObject({
        preset: 'link_in_bio',
        routedUrl: link.routedUrl,
        crcTrace: link.crcTrace,
      });
    });

    it('should answer 400 NETWORK_OVERRIDE_UNAVAILABLE when the pinned network has no positive hint', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api, {
        originalUrl: 'https://www.aliexpress.us/item/3256805952327548.html',
      });

      const response = await api.patch(`/v1/links/${link.linkId}`, { networkOverride: 'awin' });

      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('NETWORK_OVERRIDE_UNAVAILABLE');
      const reread = await api.get(`/v1/links/${link.linkId}`).expect(200);
      expect(reread.body.data.link).toEqual(link);
    });

    it('should answer 400 VALIDATION_ERROR when the body is empty', async () => {
      const api = await newApi();
      const link = await createLinkViaApi(api);

      const response = await api.patch(`/v1/links/${link.linkId}`, {});

      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.message).toContain('at least one field');
    });

    const badPatches: [string, LinkRequest, string][] = [
      ['title is null', { title: null }, 'title'],
      ['title is empty', { title: '' }, 'title'],
      ['title has 301 characters', { title: 't'.repeat(301) }, 'title'],
      ['preset is null', { preset: null }, 'preset'],
      ['preset is link-in-bio', { preset: 'link-in-bio' }, 'preset'],
      ['passthrough is null', { passthrough: null }, 'passthrough'],
      ['passthrough is "false"', { passthrough: 'false' }, 'passthrough'],
      [
        'passthroughReason has 501 characters',
        { passthrough: true, passthroughReason: 'r'.repeat(501) },
        'passthroughReason',
      ],
      ['category is unknown', { category: 'shoes' }, 'category'],
      ['groupId has 129 characters', { groupId: 'g'.repeat(129) }, 'groupId'],
      ['notes has 1001 characters', { notes: 'n'.repeat(1001) }, 'notes'],
      [
        'utm_term has 201 characters',
        { utmOverride: { utm_term: 't'.repeat(201) } },
        'utmOverride.utm_term',
      ],
      ['networkOverride is unknown', { networkOverride: 'paypal' }, 'networkOverride'],
      ['originalUrl is sent', { originalUrl: buildAmazonUrl() }, 'originalUrl'],
      ['visitorCountry is sent', { visitorCountry: 'IN' }, 'visitorCountry'],
      ['the [G] field url is sent', { url: buildAmazonUrl() }, 'url'],
    ];

    it.each(badPatches)(
      'should answer 400 VALIDATION_ERROR naming the field when %s',
      async (_name, body, field) => {
        const api = await newApi();
        const link = await createLinkViaApi(api);

        const response = await api.patch(`/v1/links/${link.linkId}`, body);

        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
        expect(Object.keys(response.body.error.details)).toEqual([field]);
      },
    );
  });

  describe('DELETE /v1/links/:id', () => {
    it('should soft-delete the link, then answer 404 on it and leave it out of the list', async () => {
      const api = await newApi();
      const [kept, doomed] = await createLinksViaApi(api, [{}, {}]);
      const path = `/v1/links/${doomed.linkId}`;

      const response = await api.delete(path);

      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        data: { linkId: doomed.linkId, deleted: true },
      });
      const after = [
        await api.get(path),
        await api.patch(path, { title: 'Back?' }),
        await api.delete(path),
      ];
      expect(after.map((r) => [r.status, r.body.error?.code])).toEqual([
        [404, 'LINK_NOT_FOUND'],
        [404, 'LINK_NOT_FOUND'],
        [404, 'LINK_NOT_FOUND'],
      ]);
      const list = await api.get('/v1/links').expect(200);
      expect(idsOf(list.body.data.items)).toEqual([kept.linkId]);
      expect(list.body.data.pagination.total).toBe(1);
    });
  });
});

/** `prefix` padded with `a` to exactly `length` characters. */
function padUrl(prefix: string, length: number): string {
  return prefix + 'a'.repeat(length - prefix.length);
}

function send(api: ApiClient, method: 'GET' | 'PATCH' | 'DELETE', path: string) {
  switch (method) {
    case 'GET':
      return api.get(path);
    case 'PATCH':
      return api.patch(path, { title: 'Renamed' });
    case 'DELETE':
      return api.delete(path);
  }
}
