import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createLinkpilotClient, LinkpilotError } from '../../examples/linkpilot-client';
import { buildAmazonUrl } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ERROR_STATUS, ErrorCode } from '../../src/common/errors/error-code';
import { startTestApp, TestApp } from '../support/test-app';

interface ErrorAnswer {
  content: Record<
    string,
    { schema: unknown; examples: Record<string, { value: { error: { code: ErrorCode } } }> }
  >;
}

const ERROR_STATUSES = ['400', '401', '403', '404', '409', '413', '414', '422', '429', '503'];

describe('OpenAPI document and the example client (e2e)', () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}/v1`;
  });
  afterAll(() => t.close());

  it('should serve at /docs-json the document committed as openapi.json', async () => {
    const served = await t.http.get('/docs-json').expect(200);
    const committed: unknown = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'openapi.json'), 'utf8'),
    );
    expect(served.body).toEqual(committed);
  });

  it('should title the docs page Linkpilot API', async () => {
    const page = await t.http.get('/docs').redirects(1).expect(200);
    expect(page.text).toContain('<title>Linkpilot API</title>');
  });

  it('should give every operation an id, a summary, a tag and enveloped error answers', async () => {
    const document = (await t.http.get('/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    for (const [path, item] of Object.entries(document.paths)) {
      // The routes outside /v1 (their own server) answer plain JSON or the edge's answers.
      const isApi = item.servers === undefined;
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'servers') continue;
        const name = `${method.toUpperCase()} ${path}`;
        expect({ name, operationId: typeof operation.operationId }).toEqual({
          name,
          operationId: 'string',
        });
        expect({ name, summary: typeof operation.summary }).toEqual({ name, summary: 'string' });
        expect({ name, tags: (operation.tags as string[]).length }).toEqual({ name, tags: 1 });
        const responses = operation.responses as Record<string, ErrorAnswer>;
        for (const status of Object.keys(responses).filter((s) => ERROR_STATUSES.includes(s))) {
          if (!isApi) continue;
          const content = responses[status].content['application/json'];
          expect({ name, status, schema: content.schema }).toEqual({
            name,
            status,
            schema: { $ref: '#/components/schemas/ApiErrorEnvelope' },
          });
          // One example per code, each a code the catalogue answers with this status.
          const codes = Object.values(content.examples).map((example) => example.value.error.code);
          expect({ name, status, codes: codes.length > 0 }).toEqual({ name, status, codes: true });
          expect({
            name,
            status,
            statuses: codes.map((code) => String(ERROR_STATUS[code])),
          }).toEqual({ name, status, statuses: codes.map(() => status) });
        }
        const isAuthenticated = (operation.security as unknown[]).length > 0;
        const expected = isAuthenticated ? ['401', '403', '429', '503'] : [];
        expect({ name, statuses: Object.keys(responses) }).toEqual({
          name,
          statuses: expect.arrayContaining(expected),
        });
      }
    }
    expect(document.paths['/links/{id}'].get.responses).toHaveProperty('404');
    expect(document.paths['/links'].post.responses).toHaveProperty('400');
  });

  it('should document the error codes each route answers, beside the shared ones', async () => {
    const document = (await t.http.get('/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, { responses: Record<string, ErrorAnswer> }>>;
    };
    const codesOf = (path: string, method: string, status: string): string[] =>
      Object.keys(
        document.paths[path][method].responses[status].content['application/json'].examples,
      );
    expect(codesOf('/links', 'post', '400')).toEqual(
      expect.arrayContaining(['VALIDATION_ERROR', 'NETWORK_OVERRIDE_UNAVAILABLE']),
    );
    expect(codesOf('/links', 'post', '401')).toEqual(['UNAUTHORIZED']);
    expect(codesOf('/links', 'post', '409')).toEqual(['IDEMPOTENCY_KEY_IN_USE']);
    expect(codesOf('/links', 'post', '422')).toEqual(['IDEMPOTENCY_KEY_REUSED']);
    expect(codesOf('/links', 'post', '429')).toEqual(['RATE_LIMIT_EXCEEDED']);
    expect(codesOf('/links/{id}', 'get', '404')).toEqual(['LINK_NOT_FOUND']);
    expect(codesOf('/merchants/{id}', 'get', '404')).toEqual(['MERCHANT_NOT_FOUND']);
    expect(codesOf('/webhooks/{id}', 'get', '404')).toEqual(['WEBHOOK_NOT_FOUND']);
    expect(codesOf('/links/bulk', 'post', '403')).toContain('ENTERPRISE_TIER_REQUIRED');
    expect(codesOf('/sandbox', 'delete', '403')).toContain('TEST_KEY_REQUIRED');
  });

  it('should create a link, list it and read the summary through the example client', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const client = createLinkpilotClient(baseUrl, creator.apiKey);
    const link = await client.createLink({ originalUrl: buildAmazonUrl() });
    expect(link.linkId).toEqual(expect.any(String));
    const links = await client.listLinks({ limit: 10 });
    expect(links.map((item) => item.linkId)).toContain(link.linkId);
    const summary = await client.getAnalyticsSummary();
    expect(summary.totalClicks).toBe(0);

    const stranger = createLinkpilotClient(baseUrl, 'lp_live_sk_unknown');
    await expect(stranger.listLinks()).rejects.toMatchObject({
      status: 401,
      error: { code: 'UNAUTHORIZED' },
    });
    await expect(stranger.listLinks()).rejects.toBeInstanceOf(LinkpilotError);
  });
});
