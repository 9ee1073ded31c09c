import { buildAmazonUrl, buildAsosUrl, LinkBody } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

const REDIRECT_BASE_URL = 'https://go.linkpilot.test';

interface BulkFailure {
  index: number;
  originalUrl: string | null;
  error: { code: string; message: string; details?: Record<string, string[]> };
}

describe('POST /v1/links/bulk (e2e)', () => {
  let t: TestApp;

  const newApi = async (plan: 'publisher' | 'enterprise' = 'enterprise'): Promise<ApiClient> =>
    createApiClient(t, await createCreatorWithKey(t.app, { plan }));
  const bulk = (api: ApiClient, links: unknown) => api.post('/v1/links/bulk', { links });
  const failureSummary = (failed: BulkFailure[]) =>
    failed.map(({ index, originalUrl, error }) => ({ index, originalUrl, code: error.code }));

  beforeAll(async () => {
    t = await startTestApp({ REDIRECT_BASE_URL, PROBES_ENABLED: 'false' }); // no outbound probes
  });
  afterAll(() => t.close());

  it('should answer 403 ENTERPRISE_TIER_REQUIRED and create nothing when the key is Publisher', async () => {
    const api = await newApi('publisher');

    const response = await bulk(api, [{ originalUrl: buildAmazonUrl() }]);

    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('ENTERPRISE_TIER_REQUIRED');
    const list = await api.get('/v1/links').expect(200);
    expect(list.body.data.pagination.total).toBe(0);
  });

  it('should answer 207 with each item created or failed on its own when items are mixed', async () => {
    const api = await newApi();
    const amazonUrl = buildAmazonUrl();
    const asosUrl = buildAsosUrl();
    const badPresetUrl = buildAmazonUrl();
    const items: unknown[] = [
      { originalUrl: amazonUrl, title: 'First' },
      { originalUrl: badPresetUrl, preset: 'auto' },
      { originalUrl: amazonUrl, title: 'Duplicate' },
      { originalUrl: asosUrl, preset: 'long_form', groupId: 'summer' },
      'https://www.amazon.com/dp/B0CHWRXH8B',
      { originalUrl: 'https://shop.example.com/x?b=2&a=1' },
      { originalUrl: 'https://www.amazon.com/dp/B0CHWRXH8B', networkOverride: 'awin' },
      { url: 'https://www.amazon.com/dp/B0CHWRXH8B' },
      null,
    ];

    const response = await bulk(api, items);

    expect(response.status).toBe(207);
    const data = response.body.data;
    expect(Object.keys(data).sort()).toEqual([
      'created',
      'failed',
      'totalCreated',
      'totalFailed',
      'totalRequested',
    ]);
    expect({
      totalRequested: data.totalRequested,
      totalCreated: data.totalCreated,
      totalFailed: data.totalFailed,
    }).toEqual({ totalRequested: 9, totalCreated: 3, totalFailed: 6 });
    const created = data.created as LinkBody[];
    expect(created.map((link) => link.originalUrl)).toEqual([
      amazonUrl,
      asosUrl,
      'https://shop.example.com/x?b=2&a=1',
    ]);
    expect(created[0]).toMatchObject({
      title: 'First',
      merchantId: 'amazon',
      networkId: 'amazon_associates',
      linkpilotUrl: `${REDIRECT_BASE_URL}/r/${created[0].linkId}`,
      healthStatus: 'unknown',
      deepLinkStatus: 'unchecked',
      crcTrace: expect.objectContaining({ winner: expect.any(Object) }),
    });
    expect(created[1]).toMatchObject({ preset: 'long_form', groupId: 'summer' });
    expect(created[2]).toMatchObject({
      routedUrl: 'https://shop.example.com/x?b=2&a=1',
      passthrough: { enabled: true, reason: expect.stringContaining('Unsupported merchant') },
    });

    const failed = data.failed as BulkFailure[];
    expect(failureSummary(failed)).toEqual([
      { index: 1, originalUrl: badPresetUrl, code: 'VALIDATION_ERROR' },
      { index: 2, originalUrl: amazonUrl, code: 'VALIDATION_ERROR' },
      { index: 4, originalUrl: null, code: 'VALIDATION_ERROR' },
      {
        index: 6,
        originalUrl: 'https://www.amazon.com/dp/B0CHWRXH8B',
        code: 'NETWORK_OVERRIDE_UNAVAILABLE',
      },
      { index: 7, originalUrl: null, code: 'VALIDATION_ERROR' },
      { index: 8, originalUrl: null, code: 'VALIDATION_ERROR' },
    ]);
    // Each error is an ApiError: {code, message, details?}, with no requestId of its own.
    for (const failure of failed) {
      expect(failure.error).toEqual(
        expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
      );
    }
    // Every VALIDATION_ERROR carries details ([S]); NETWORK_OVERRIDE_UNAVAILABLE has none.
    expect(failed.map((failure) => Object.keys(failure.error))).toEqual([
      ['code', 'message', 'details'],
      ['code', 'message', 'details'],
      ['code', 'message', 'details'],
      ['code', 'message'],
      ['code', 'message', 'details'],
      ['code', 'message', 'details'],
    ]);
    expect(failed[0].error.details).toEqual({ preset: [expect.stringContaining('use default')] });
    expect(failed[1].error.details).toEqual({ originalUrl: [expect.stringContaining('item 0')] });
    expect(failed[4].error.details).toEqual({
      url: [expect.stringContaining('use originalUrl')],
      originalUrl: [expect.any(String)],
    });

    const list = await api.get('/v1/links').expect(200);
    expect(list.body.data.pagination.total).toBe(3);
    expect(list.body.data.items.map((item: LinkBody) => item.linkId).sort()).toEqual(
      created.map((link) => link.linkId).sort(),
    );
  });

  it('should create the first of two duplicate URLs and fail the later ones', async () => {
    const api = await newApi();
    const url = buildAmazonUrl();
    const other = buildAmazonUrl();

    const response = await bulk(api, [
      { originalUrl: other },
      { originalUrl: url, title: 'kept' },
      { originalUrl: url, title: 'second' },
      { originalUrl: url, title: 'third' },
    ]);

    expect(response.status).toBe(207);
    const { created, failed } = response.body.data as {
      created: LinkBody[];
      failed: BulkFailure[];
    };
    expect(created.map((link) => [link.originalUrl, link.title])).toEqual([
      [other, expect.any(String)],
      [url, 'kept'],
    ]);
    expect(failed).toEqual(
      [2, 3].map((index) => ({
        index,
        originalUrl: url,
        error: {
          code: 'VALIDATION_ERROR',
          message: expect.stringContaining('Duplicate originalUrl'),
          details: { originalUrl: ['duplicates item 1 of this request'] },
        },
      })),
    );
  });

  it('should create a later item with the same URL when the earlier one failed', async () => {
    const api = await newApi();
    const url = buildAmazonUrl();

    const response = await bulk(api, [
      { originalUrl: url, preset: 'auto' },
      { originalUrl: url, networkOverride: 'cj' },
      { originalUrl: url, title: 'the one created' },
    ]);

    expect(response.status).toBe(207);
    expect(failureSummary(response.body.data.failed)).toEqual([
      { index: 0, originalUrl: url, code: 'VALIDATION_ERROR' },
      { index: 1, originalUrl: url, code: 'NETWORK_OVERRIDE_UNAVAILABLE' },
    ]);
    expect(response.body.data.created.map((link: LinkBody) => link.title)).toEqual([
      'the one created',
    ]);
  });

  it('should fail only the items holding text that is not well-formed, and create the rest', async () => {
    const api = await newApi();
    const valid = [buildAmazonUrl(), buildAmazonUrl(), buildAsosUrl()];
    const badUrl = buildAmazonUrl();
    const items: unknown[] = [
      { originalUrl: valid[0], title: 'first' },
      { originalUrl: badUrl, utmOverride: { utm_source: 'x\udfffy' } },
      {
        originalUrl: badUrl,
        networkOverride: { networkId: 'amazon_associates', reason: '\ud800' },
      },
      { originalUrl: valid[1], title: 'second' },
      { originalUrl: badUrl, utmOverride: { ['utm_\udfff']: 'x' } },
      { originalUrl: `${badUrl}?q=\ud83d` },
      { originalUrl: badUrl, notes: 'a\u0000b' },
      { originalUrl: valid[2], title: '\ufffd\ufeff\uffff' },
    ];

    const response = await bulk(api, items);

    expect(response.status).toBe(207);
    const data = response.body.data as { created: LinkBody[]; failed: BulkFailure[] };
    expect(data.created.map((link) => [link.originalUrl, link.title])).toEqual([
      [valid[0], 'first'],
      [valid[1], 'second'],
      [valid[2], '\ufffd\ufeff\uffff'],
    ]);
    const fieldsOf = (failure: BulkFailure) => Object.keys(failure.error.details ?? {});
    expect(data.failed.map((f) => [f.index, f.error.code, fieldsOf(f)])).toEqual([
      [1, 'VALIDATION_ERROR', ['utmOverride.utm_source']],
      [2, 'VALIDATION_ERROR', ['networkOverride.reason']],
      [4, 'VALIDATION_ERROR', ['utmOverride.utm_\\udfff']],
      [5, 'VALIDATION_ERROR', ['originalUrl']],
      [6, 'VALIDATION_ERROR', ['notes']],
    ]);
    expect(data.failed[0].error.details).toEqual({
      'utmOverride.utm_source': [expect.stringContaining('well-formed')],
    });
    // The echo is text any JSON parser reads: the lone surrogate as U+FFFD.
    expect(data.failed[3].originalUrl).toBe(`${badUrl}?q=\ufffd`);
    const list = await api.get('/v1/links').expect(200);
    expect(list.body.data.pagination.total).toBe(3);
  });

  it('should refuse the whole request when its envelope holds a lone surrogate', async () => {
    const api = await newApi();

    const response = await api.post('/v1/links/bulk', {
      links: [{ originalUrl: buildAmazonUrl() }],
      ['\ud800']: true,
    });

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(response.body.error.details)).toEqual(['\\ud800']);
    const list = await api.get('/v1/links').expect(200);
    expect(list.body.data.pagination.total).toBe(0);
  });

  it.each([
    ['no items', 0],
    ['101 items', 101],
  ])(
    'should answer 400 BULK_LIMIT_EXCEEDED and create nothing when sent %s',
    async (_name, count) => {
      const api = await newApi();

      const response = await bulk(
        api,
        Array.from({ length: count }, () => ({ originalUrl: buildAmazonUrl() })),
      );

      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('BULK_LIMIT_EXCEEDED');
      expect(response.body.error.message).toContain(String(count));
      const list = await api.get('/v1/links').expect(200);
      expect(list.body.data.pagination.total).toBe(0);
    },
  );

  const badBodies: [string, unknown, string][] = [
    ['links is a string', { links: 'https://www.amazon.com/dp/B0CHWRXH8B' }, 'links'],
    [
      'links is an object',
      { links: { originalUrl: 'https://www.amazon.com/dp/B0CHWRXH8B' } },
      'links',
    ],
    ['links is null', { links: null }, 'links'],
    ['links is missing', {}, 'links'],
    ['an unknown top-level key is sent', { links: [], dryRun: true }, 'dryRun'],
  ];

  it.each(badBodies)('should answer 400 VALIDATION_ERROR when %s', async (_name, body, field) => {
    const api = await newApi();

    const response = await api.post('/v1/links/bulk', body);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(response.body.error.details)).toContain(field);
  });

  it('should refuse the 11th bulk request in a minute with 429 while other endpoints of the key still work', async () => {
    const api = await newApi();

    for (let i = 1; i <= 10; i++) {
      const response = await bulk(api, [{ originalUrl: buildAmazonUrl() }]);
      expect(response.status).toBe(207);
      expect(response.headers['x-ratelimit-limit']).toBe('10');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(10 - i));
    }
    const refused = await bulk(api, [{ originalUrl: buildAmazonUrl() }]);

    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.message).toMatch(/10 requests per minute.*retry in \d+ seconds/);
    expect(refused.headers['x-ratelimit-limit']).toBe('10');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const list = await api.get('/v1/links').expect(200);
    expect(list.headers['x-ratelimit-limit']).toBe('600');
    expect(list.body.data.pagination.total).toBe(10);
    const single = await api.post('/v1/links', { originalUrl: buildAmazonUrl() });
    expect(single.status).toBe(201);
  });

  it('should create all 100 links when every item is valid', async () => {
    const api = await newApi();
    const items = Array.from({ length: 100 }, (_, index) => ({
      originalUrl: index % 2 === 0 ? buildAmazonUrl() : buildAsosUrl(),
      title: `Bulk item ${index}`,
    }));

    const startedAt = process.hrtime.bigint();
    const response = await bulk(api, items);
    const elapsedMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
    // Informational only: the suite runs on machines of any speed.
    // eslint-disable-next-line no-console
    console.log(`POST /v1/links/bulk with 100 valid items took ${elapsedMs.toFixed(0)} ms`);

    expect(response.status).toBe(207);
    expect(response.body.data).toMatchObject({
      totalRequested: 100,
      totalCreated: 100,
      totalFailed: 0,
      failed: [],
    });
    expect(response.body.data.created.map((link: LinkBody) => link.title)).toEqual(
      items.map((item) => item.title),
    );
    const list = await api.get('/v1/links?limit=100').expect(200);
    expect(list.body.data.pagination.total).toBe(100);
  });
});
