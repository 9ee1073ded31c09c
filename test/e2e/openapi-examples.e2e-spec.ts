import type { AddressInfo } from 'node:net';
import { createCreatorWithKey } from '../factories/creator.factory';
import { resolveExampleDotCom } from '../support/example-dns';
import {
  bodyExamplesOf,
  ExampleRunner,
  listOperations,
  needsTestKey,
  successStatusOf,
  type DocumentedOperation,
  type OpenApiDocument,
  type SendRequest,
} from '../support/openapi-examples';
import { startTestApp, type TestApp } from '../support/test-app';
import { webhookDeliveryFixtures } from '../support/webhook-delivery-fixture';

/**
 * Every operation of /docs-json, sent as documented (the request Swagger UI's "Try it out"
 * pre-fills, each named body example) by a fresh Enterprise creator against the seeded
 * server, answers its documented success status. A new route without a request example, or
 * with one that fails, fails here.
 */
describe('Documented request examples over /docs-json (e2e)', () => {
  let t: TestApp;
  let baseUrl: string;
  let document: OpenApiDocument;
  let restoreDns: () => void;

  beforeAll(async () => {
    restoreDns = resolveExampleDotCom();
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    document = (await t.http.get('/docs-json').expect(200)).body as OpenApiDocument;
  });
  afterAll(async () => {
    await t?.close();
    restoreDns();
  });

  /** A runner whose requests carry a fresh Enterprise creator's key (a test key if needed). */
  async function runnerFor(entry: DocumentedOperation): Promise<ExampleRunner> {
    const creator = await createCreatorWithKey(t.app, {
      plan: 'enterprise',
      environment: needsTestKey(entry) ? 'test' : 'live',
    });
    const send: SendRequest = async ({ method, url, body, isAuthenticated }) => {
      const response = await fetch(`${baseUrl}${url}`, {
        method,
        redirect: 'manual',
        headers: {
          ...(isAuthenticated ? { authorization: creator.authorization } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      const isJson = (response.headers.get('content-type') ?? '').includes('json');
      return { status: response.status, body: isJson ? (JSON.parse(text) as unknown) : text };
    };
    return new ExampleRunner(document, send, webhookDeliveryFixtures(t.app));
  }

  it('should document the routes outside /v1 and a description for every operation', () => {
    const operations = listOperations(document);
    expect(operations.map((entry) => entry.name)).toEqual(
      expect.arrayContaining(['GET /r/{linkId}', 'GET /livez', 'GET /readyz', 'POST /links/bulk']),
    );
    const undescribed = operations
      .filter((entry) => (entry.operation.description ?? '').trim() === '')
      .map((entry) => entry.name);
    expect(undescribed).toEqual([]);
  });

  it('should answer every documented request example with its documented success status', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const entry of listOperations(document)) {
      let examples: { exampleName: string; body?: unknown }[];
      try {
        examples = bodyExamplesOf(entry);
      } catch (error) {
        failures.push(String(error));
        continue;
      }
      for (const { exampleName, body } of examples) {
        try {
          const runner = await runnerFor(entry);
          const answer = await runner.run(entry, body);
          sent += 1;
          const expected = successStatusOf(entry);
          // A 207 succeeds as shown only when none of its items failed.
          const failedItems = answer.status === 207 ? readFailedItems(answer.body) : [];
          if (answer.status !== expected || failedItems.length > 0) {
            failures.push(
              `${entry.name} [${exampleName}] ${answer.method} ${answer.url}: ` +
                `${answer.status}, documented ${expected}: ${JSON.stringify(answer.body)}`,
            );
          }
        } catch (error) {
          failures.push(`${entry.name} [${exampleName}]: ${String(error)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(listOperations(document).length);
  }, 120_000);
});

function readFailedItems(body: unknown): unknown[] {
  return (body as { data?: { failed?: unknown[] } }).data?.failed ?? ['(no data.failed)'];
}
