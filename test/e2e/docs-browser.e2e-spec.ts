import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { createCreatorWithKey, type TestCreator } from '../factories/creator.factory';
import { resolveExampleDotCom } from '../support/example-dns';
import {
  ExampleRunner,
  listOperations,
  needsTestKey,
  successStatusOf,
  type OpenApiDocument,
  type SendRequest,
} from '../support/openapi-examples';
import { startTestApp, type TestApp } from '../support/test-app';
import { domainFixtures } from '../support/domain-fixture';
import { webhookDeliveryFixtures } from '../support/webhook-delivery-fixture';

// Debian's Chromium, not a browser build downloaded by Playwright (this machine reaches Debian's
// packages but no browser download host).
const CHROMIUM_PATH = '/usr/bin/chromium';
const INSTALL_HINT =
  `No browser at ${CHROMIUM_PATH}: install it with ` +
  '`apt-get update && apt-get install -y chromium` (as root) to run the Swagger UI test.';
// Git-ignored (.gitignore: test-output/).
const SCREENSHOT_DIR = join(__dirname, '..', '..', 'test-output');

const hasBrowser = existsSync(CHROMIUM_PATH);
// In CI a missing browser is a failure (`.ci/run` installs it), never a silent skip.
const isSkipped = !hasBrowser && process.env.CI === undefined;
if (isSkipped) {
  process.stderr.write(`Skipping the Swagger UI browser test. ${INSTALL_HINT}\n`);
}
const describeWithBrowser = isSkipped ? describe.skip : describe;
const title = 'Swagger UI at /docs in Chromium (e2e)';

describeWithBrowser(isSkipped ? `${title} [skipped: ${INSTALL_HINT}]` : title, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let baseUrl: string;
  let creator: TestCreator;
  let restoreDns: (() => void) | undefined;

  beforeAll(async () => {
    if (!hasBrowser) {
      throw new Error(INSTALL_HINT);
    }
    restoreDns = resolveExampleDotCom();
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage();
    await page.goto(`${baseUrl}/docs`);
    await page.locator('.information-container .title').waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    restoreDns?.();
  });

  it('should show the title, version and description, and group operations by tag', async () => {
    // The browser tab's title, not Swagger UI's own.
    await expect(page.title()).resolves.toBe('Linkpilot API');
    await expect(page.locator('.information-container .title').innerText()).resolves.toContain(
      'Linkpilot API',
    );
    const version = await page.locator('.information-container .version').first().innerText();
    expect(version.trim()).toBe('v1');
    await expect(
      page.locator('.information-container .description').innerText(),
    ).resolves.toContain('Affiliate-link routing');
    const tags = await page
      .locator('h3.opblock-tag')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-tag')));
    expect(tags).toEqual(expect.arrayContaining(['links', 'analytics', 'merchants']));
  });

  it('should authorise, create a link with the pre-filled example body and list it after a reload', async () => {
    await authorize(page, creator.apiKey);

    // The document's server is /v1, so "Try it out" calls <origin>/v1/links; the body is the
    // documented example Swagger UI pre-fills, sent as it is.
    const create = await openOperation(page, 'post', '/links');
    const prefilled = await create.locator('textarea.body-param__text').inputValue();
    expect(JSON.parse(prefilled)).toMatchObject({ originalUrl: expect.stringMatching(/^https:/) });
    const created = await execute(create);
    expect(created.requestUrl).toBe(`${baseUrl}/v1/links`);
    expect({ status: created.status, body: created.body }).toMatchObject({ status: '201' });
    const linkId = (JSON.parse(created.body) as { data: { link: { linkId: string } } }).data.link
      .linkId;
    expect(linkId).toMatch(/^\w+$/);

    await page.reload();
    await page.locator('.information-container .title').waitFor();
    await expect(page.locator('.auth-wrapper button.authorize.locked').count()).resolves.toBe(1);

    const list = await openOperation(page, 'get', '/links');
    const listed = await execute(list);
    expect(listed.requestUrl).toBe(`${baseUrl}/v1/links?page=1&limit=25`);
    expect(listed.status).toBe('200');
    expect(listed.body).toContain(linkId);

    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'swagger-ui.png'), fullPage: true });
  }, 60_000);

  it('should answer "Try it out" of every operation, as pre-filled, with its documented status', async () => {
    const document = (await (await fetch(`${baseUrl}/docs-json`)).json()) as OpenApiDocument;
    const operations = listOperations(document).filter(
      // The browser follows the 302 to the merchant's site, which Swagger UI cannot read
      // (cross-origin): the plain e2e (openapi-examples.e2e-spec.ts) checks its 302.
      (entry) => entry.path !== '/r/{linkId}',
    );
    const failures: string[] = [];
    let executed = 0;
    for (const usesTestKey of [false, true]) {
      const caller = await createCreatorWithKey(t.app, {
        plan: 'enterprise',
        environment: usesTestKey ? 'test' : 'live',
      });
      const runner = new ExampleRunner(document, sendWithKey(baseUrl, caller.authorization), {
        ...webhookDeliveryFixtures(t.app),
        ...domainFixtures(),
      });
      // Forget the key persistAuthorization kept, then authorise with this caller's.
      await page.evaluate('localStorage.removeItem("authorized")');
      await page.reload();
      await page.locator('.information-container .title').waitFor();
      await authorize(page, caller.apiKey);
      for (const entry of operations.filter((op) => needsTestKey(op) === usesTestKey)) {
        try {
          const pathValues = await runner.resolvePathParameters(entry);
          const operation = await openOperation(page, entry.method, entry.path);
          for (const [name, value] of Object.entries(pathValues)) {
            await operation
              .locator(`tr[data-param-name="${name}"][data-param-in="path"] input`)
              .fill(value);
          }
          const answer = await execute(operation);
          executed += 1;
          const expectedUrl = `${baseUrl}${runner.buildUrl(entry, pathValues)}`;
          const expected = String(successStatusOf(entry));
          if (answer.status !== expected || answer.requestUrl !== expectedUrl) {
            failures.push(
              `${entry.name}: ${answer.status} from ${answer.requestUrl}, documented ` +
                `${expected} from ${expectedUrl}: ${answer.body}`,
            );
          }
          await operation.locator('.opblock-summary-control').click();
        } catch (error) {
          failures.push(`${entry.name}: ${String(error)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(executed).toBe(operations.length);
  }, 480_000);
});

/** Authorises through the Authorize dialog (Swagger UI then keeps the key in localStorage). */
async function authorize(page: Page, apiKey: string): Promise<void> {
  await page.locator('.auth-wrapper button.authorize').click();
  const dialog = page.locator('.modal-ux');
  await dialog.locator('input').first().fill(apiKey);
  await dialog.locator('.auth-btn-wrapper button.authorize').click();
  await dialog.locator('button.btn-done').click();
}

/** Plain HTTP with the caller's key: makes the resources whose ids fill path parameters. */
function sendWithKey(baseUrl: string, authorization: string): SendRequest {
  return async ({ method, url, body, isAuthenticated }) => {
    const response = await fetch(`${baseUrl}${url}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(isAuthenticated ? { authorization } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const isJson = (response.headers.get('content-type') ?? '').includes('json');
    return { status: response.status, body: isJson ? (JSON.parse(text) as unknown) : text };
  };
}

/** Expands the operation and turns "Try it out" on, whatever state they were left in. */
async function openOperation(page: Page, method: string, path: string): Promise<Locator> {
  const operation = page
    .locator(`.opblock-${method}`)
    .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
  const summary = operation.locator('.opblock-summary-control');
  await summary.waitFor();
  if (!(await operation.evaluate((node) => node.classList.contains('is-open')))) {
    await summary.click();
  }
  const tryOut = operation.locator('button.try-out__btn');
  await tryOut.waitFor();
  if (!(await tryOut.evaluate((node) => node.classList.contains('cancel')))) {
    await tryOut.click();
  }
  return operation;
}

async function execute(
  operation: Locator,
): Promise<{ status: string; body: string; requestUrl: string }> {
  await operation.locator('button.execute').click();
  const answer = operation.locator('.live-responses-table tr.response');
  await answer.waitFor();
  return {
    status: (await answer.locator('.response-col_status').innerText()).trim(),
    body: await answer.locator('.response-col_description pre').first().innerText(),
    requestUrl: (await operation.locator('.request-url pre').innerText()).trim(),
  };
}
