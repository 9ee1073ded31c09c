import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createLinkpilotClient, LinkpilotError } from '../../examples/linkpilot-client';
import { buildAmazonUrl } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { startTestApp, TestApp } from '../support/test-app';

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
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        expect({ name, operationId: typeof operation.operationId }).toEqual({
          name,
          operationId: 'string',
        });
        expect({ name, summary: typeof operation.summary }).toEqual({ name, summary: 'string' });
        expect({ name, tags: (operation.tags as string[]).length }).toEqual({ name, tags: 1 });
        const responses = operation.responses as Record<string, { content?: unknown }>;
        for (const status of Object.keys(responses).filter((s) => ERROR_STATUSES.includes(s))) {
          expect({ name, status, content: responses[status].content }).toEqual({
            name,
            status,
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/ApiErrorEnvelope' } },
            },
          });
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
