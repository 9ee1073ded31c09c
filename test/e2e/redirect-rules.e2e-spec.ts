import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { buildAmazonUrl, createLinkViaApi, generateAsin } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { edgeVisit, VISITOR_USER_AGENTS } from '../support/edge-visit';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

/** Destinations outside the knowledge base: served as they are, so a test reads which one. */
const PAGE_A = 'https://shop.example.com/a';
const PAGE_B = 'https://shop.example.com/b';

describe('Redirect rules (e2e)', () => {
  let t: TestApp;
  let api: ApiClient;
  const clock = new TestClock();

  beforeAll(async () => {
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false', PROBES_ENABLED: 'false' }, { clock });
    api = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
  });
  afterEach(() => clock.resume());
  afterAll(() => t.close());

  const createWithRules = async (rules: unknown[], originalUrl = buildAmazonUrl()) =>
    createLinkViaApi(api, { originalUrl, visitorCountry: 'US', rules });

  /** Where the edge sends this visitor: a trusted proxy's country header, a desktop browser. */
  const visit = async (linkId: string, headers: Record<string, string> = {}, query = '') => {
    const response = await edgeVisit(t, `/r/${linkId}${query}`, {
      'CF-IPCountry': 'US',
      ...headers,
    });
    expect(response.status).toBe(302);
    return String(response.headers.location);
  };

  describe('conditions', () => {
    it('should pick a rule by the visitor country from the trusted header', async () => {
      const link = await createWithRules([{ destinationUrl: PAGE_A, countries: ['DE', 'AT'] }]);
      expect(await visit(link.linkId, { 'CF-IPCountry': 'AT' })).toBe(PAGE_A);
      expect(await visit(link.linkId, { 'CF-IPCountry': 'US' })).toBe(link.routedUrl);
    });

    it('should pick a rule by the device the User-Agent names', async () => {
      const link = await createWithRules([
        { destinationUrl: PAGE_A, devices: ['ios'] },
        { destinationUrl: PAGE_B, devices: ['android'] },
      ]);
      expect(await visit(link.linkId, { 'User-Agent': VISITOR_USER_AGENTS.ios })).toBe(PAGE_A);
      expect(await visit(link.linkId, { 'User-Agent': VISITOR_USER_AGENTS.android })).toBe(PAGE_B);
      expect(await visit(link.linkId, { 'User-Agent': VISITOR_USER_AGENTS.desktop })).toBe(
        link.routedUrl,
      );
    });

    it("should pick a rule by the first Accept-Language entry's primary language", async () => {
      const link = await createWithRules([{ destinationUrl: PAGE_A, languages: ['DE'] }]);
      expect(await visit(link.linkId, { 'Accept-Language': 'de-AT,en;q=0.8' })).toBe(PAGE_A);
      expect(await visit(link.linkId, { 'Accept-Language': 'en-US,de;q=0.9' })).toBe(
        link.routedUrl,
      );
      expect(await visit(link.linkId)).toBe(link.routedUrl);
    });

    it('should pick a rule inside its time window only', async () => {
      const startMs = Math.ceil(Date.now() / 60_000) * 60_000 + 3_600_000;
      const at = (ms: number) => new Date(ms).toISOString();
      const hhmm = (ms: number) => at(ms).slice(11, 16);
      const link = await createWithRules([
        { destinationUrl: PAGE_A, startsAt: at(startMs), endsAt: at(startMs + 600_000) },
        {
          destinationUrl: PAGE_B,
          fromTime: hhmm(startMs + 1_200_000),
          toTime: hhmm(startMs + 1_800_000),
        },
      ]);
      clock.freezeAt(startMs - 1);
      expect(await visit(link.linkId)).toBe(link.routedUrl);
      clock.freezeAt(startMs);
      expect(await visit(link.linkId)).toBe(PAGE_A);
      clock.freezeAt(startMs + 600_000);
      expect(await visit(link.linkId)).toBe(link.routedUrl);
      clock.freezeAt(startMs + 1_500_000);
      expect(await visit(link.linkId)).toBe(PAGE_B);
      // The daily window comes back the next day; the dated one does not.
      clock.freezeAt(startMs + 86_400_000 + 1_500_000);
      expect(await visit(link.linkId)).toBe(PAGE_B);
      clock.freezeAt(startMs + 86_400_000 + 300_000);
      expect(await visit(link.linkId)).toBe(link.routedUrl);
    });

    it("should pick a rule by a query parameter's value", async () => {
      const link = await createWithRules([
        { destinationUrl: PAGE_A, query: { param: 'src', value: 'newsletter' } },
      ]);
      expect(await visit(link.linkId, {}, '?x=1&src=newsletter')).toBe(PAGE_A);
      expect(await visit(link.linkId, {}, '?src=ads')).toBe(link.routedUrl);
      expect(await visit(link.linkId)).toBe(link.routedUrl);
    });

    it('should need every condition of a rule to hold', async () => {
      const link = await createWithRules([
        { destinationUrl: PAGE_A, countries: ['DE'], devices: ['android'] },
      ]);
      const android = { 'User-Agent': VISITOR_USER_AGENTS.android };
      expect(await visit(link.linkId, { ...android, 'CF-IPCountry': 'DE' })).toBe(PAGE_A);
      expect(await visit(link.linkId, { ...android, 'CF-IPCountry': 'FR' })).not.toBe(PAGE_A);
      expect(await visit(link.linkId, { 'CF-IPCountry': 'DE' })).not.toBe(PAGE_A);
    });
  });

  it('should send the visitor to the first matching rule when two match', async () => {
    const link = await createWithRules([
      { destinationUrl: PAGE_A, countries: ['DE'] },
      { destinationUrl: PAGE_B, countries: ['DE', 'FR'] },
    ]);
    expect(await visit(link.linkId, { 'CF-IPCountry': 'DE' })).toBe(PAGE_A);
    expect(await visit(link.linkId, { 'CF-IPCountry': 'FR' })).toBe(PAGE_B);
  });

  it("should route a rule's destination by EPC with the creator's affiliate tag", async () => {
    const asin = generateAsin();
    const link = await createWithRules([
      {
        destinationUrl: `https://www.amazon.com/gp/product/${asin}/ref=xyz?th=1`,
        countries: ['DE'],
      },
    ]);
    const [rule] = link.rules as { canonicalUrl: string; routedUrl: string; merchantId: string }[];
    // Canonicalised and routed at write time, like the link's own URL.
    expect(rule.merchantId).toBe('amazon');
    expect(rule.canonicalUrl).toContain(`/dp/${asin}`);
    expect(new URL(rule.routedUrl).searchParams.get('tag')).toMatch(/^lpdemo-amazonassociates-/);
    // At click time, routed for the visitor's market, tag included.
    const location = new URL(await visit(link.linkId, { 'CF-IPCountry': 'DE' }));
    expect(location.pathname).toContain(asin);
    expect(location.hostname).toBe('www.amazon.de');
    expect(location.searchParams.get('tag')).toMatch(/^lpdemo-amazonassociates-/);
    const main = new URL(await visit(link.linkId, { 'CF-IPCountry': 'US' }));
    expect(main.pathname).not.toContain(asin);
  });

  it('should send bots to the original URL whatever the rules', async () => {
    const link = await createWithRules([{ destinationUrl: PAGE_A, countries: ['US'] }]);
    expect(await visit(link.linkId, { 'User-Agent': VISITOR_USER_AGENTS.bot })).toBe(
      link.originalUrl,
    );
  });

  it('should name the matching rule in a preview', async () => {
    const link = await createWithRules([
      { destinationUrl: PAGE_A, devices: ['ios'], languages: ['fr'] },
      { destinationUrl: PAGE_B, query: { param: 'src', value: 'qr' } },
      { destinationUrl: PAGE_A, startsAt: '2030-01-01T00:00:00Z' },
    ]);
    const preview = async (query: string) =>
      (await api.get(`/v1/links/${link.linkId}/preview?${query}`).expect(200)).body.data.preview;
    expect(await preview('country=US&device=ios&language=FR')).toMatchObject({
      ruleIndex: 0,
      location: PAGE_A,
    });
    expect(await preview('country=US&visitorQuery=src%3Dqr')).toMatchObject({
      ruleIndex: 1,
      location: PAGE_B,
    });
    expect(await preview('at=2030-06-01T00:00:00Z')).toMatchObject({ ruleIndex: 2 });
    expect(await preview('country=US')).toMatchObject({
      ruleIndex: null,
      location: link.routedUrl,
    });
  });

  it('should record the rule index on the click and show it in click records', async () => {
    const link = await createWithRules([
      { destinationUrl: PAGE_A, countries: ['FR'] },
      { destinationUrl: PAGE_B, countries: ['DE'] },
    ]);
    await visit(link.linkId, { 'CF-IPCountry': 'DE' });
    await visit(link.linkId, { 'CF-IPCountry': 'US' });
    await t.app.get(ClickStreamConsumer).drainOnce();
    const today = new Date().toISOString().slice(0, 10);
    const response = await api
      .get(`/v1/analytics/clicks?from=${today}&to=${today}&linkId=${link.linkId}`)
      .expect(200);
    const items = (
      response.body.data.items as {
        linkId: string;
        ruleIndex: number | null;
        visitorCountry: string;
      }[]
    )
      .filter((item) => item.linkId === link.linkId)
      .map(({ visitorCountry, ruleIndex }) => ({ visitorCountry, ruleIndex }));
    expect(items).toEqual(
      expect.arrayContaining([
        { visitorCountry: 'DE', ruleIndex: 1 },
        { visitorCountry: 'US', ruleIndex: null },
      ]),
    );
    expect(items).toHaveLength(2);
  });

  describe('validation', () => {
    const refused = async (rules: unknown) => {
      const response = await api.post('/v1/links', { originalUrl: buildAmazonUrl(), rules });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      return response.body.error.details as Record<string, string[]>;
    };

    it('should refuse more than 20 rules', async () => {
      const rules = Array.from({ length: 21 }, () => ({
        destinationUrl: PAGE_A,
        countries: ['DE'],
      }));
      expect(Object.keys(await refused(rules))).toEqual(['rules']);
    });

    it('should refuse an unknown device, naming the rule', async () => {
      const details = await refused([
        { destinationUrl: PAGE_A, countries: ['DE'] },
        { destinationUrl: PAGE_A, devices: ['windows-phone'] },
      ]);
      expect(Object.keys(details)).toEqual(['rules.1.devices']);
    });

    it('should refuse a rule without a condition', async () => {
      expect(Object.keys(await refused([{ destinationUrl: PAGE_A }]))).toEqual(['rules.0']);
    });

    it('should refuse a bad destination URL, naming it', async () => {
      const details = await refused([
        { destinationUrl: PAGE_A, countries: ['DE'] },
        { destinationUrl: PAGE_A, countries: ['FR'] },
        { destinationUrl: 'http://127.0.0.1/x', countries: ['IT'] },
      ]);
      expect(Object.keys(details)).toEqual(['rules.2.destinationUrl']);
    });

    it.each([
      [[{ destinationUrl: PAGE_A, countries: ['de'] }], 'rules.0.countries'],
      [[{ destinationUrl: PAGE_A, languages: ['german'] }], 'rules.0.languages'],
      [[{ destinationUrl: PAGE_A, fromTime: '09:00' }], 'rules.0.toTime'],
      [[{ destinationUrl: PAGE_A, fromTime: '25:00', toTime: '10:00' }], 'rules.0.fromTime'],
      [
        [
          {
            destinationUrl: PAGE_A,
            startsAt: '2030-01-02T00:00:00Z',
            endsAt: '2030-01-01T00:00:00Z',
          },
        ],
        'rules.0.endsAt',
      ],
      [[{ destinationUrl: PAGE_A, query: { param: '', value: 'x' } }], 'rules.0.query.param'],
      [[{ destinationUrl: PAGE_A, countries: [] }], 'rules.0.countries'],
      [[{ destinationUrl: PAGE_A, weekday: 'monday' }], 'rules.0.weekday'],
      ['not a list', 'rules'],
    ])('should refuse %j, naming %s', async (rules, field) => {
      expect(Object.keys(await refused(rules))).toContain(field);
    });
  });

  it('should replace the rules on PATCH, and the edge should follow at once', async () => {
    const link = await createWithRules([{ destinationUrl: PAGE_A, countries: ['DE'] }]);
    const german = { 'CF-IPCountry': 'DE' };
    expect(await visit(link.linkId, german)).toBe(PAGE_A);

    const patched = await api
      .patch(`/v1/links/${link.linkId}`, { rules: [{ destinationUrl: PAGE_B, countries: ['DE'] }] })
      .expect(200);
    expect(patched.body.data.link.rules).toEqual([
      expect.objectContaining({ destinationUrl: PAGE_B, countries: ['DE'] }),
    ]);
    expect(await visit(link.linkId, german)).toBe(PAGE_B);

    const cleared = await api.patch(`/v1/links/${link.linkId}`, { rules: null }).expect(200);
    expect(cleared.body.data.link.rules).toBeUndefined();
    expect(await visit(link.linkId, german)).not.toBe(PAGE_B);

    await api
      .patch(`/v1/links/${link.linkId}`, { rules: [{ destinationUrl: PAGE_A, countries: ['DE'] }] })
      .expect(200);
    await api.patch(`/v1/links/${link.linkId}`, { rules: [] }).expect(200);
    expect(await visit(link.linkId, german)).not.toBe(PAGE_A);
  });

  it('should take rules on bulk create', async () => {
    // Bulk creation is an Enterprise feature.
    const enterprise = createApiClient(
      t,
      await createCreatorWithKey(t.app, { plan: 'enterprise' }),
    );
    const response = await enterprise
      .post('/v1/links/bulk', {
        links: [
          { originalUrl: buildAmazonUrl(), rules: [{ destinationUrl: PAGE_A, countries: ['DE'] }] },
          { originalUrl: buildAmazonUrl(), rules: [{ destinationUrl: PAGE_A }] },
        ],
      })
      .expect(207);
    const { created, failed } = response.body.data;
    expect(created).toHaveLength(1);
    expect(created[0].rules).toEqual([expect.objectContaining({ destinationUrl: PAGE_A })]);
    expect(failed).toEqual([
      expect.objectContaining({
        index: 1,
        error: expect.objectContaining({ details: { 'rules.0': expect.any(Array) } }),
      }),
    ]);
    expect(await visit(created[0].linkId, { 'CF-IPCountry': 'DE' })).toBe(PAGE_A);
  });
});
