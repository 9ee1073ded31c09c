import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { Response } from 'supertest';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { buildAmazonUrl, createLinkViaApi, LinkBody } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { edgeVisit } from '../support/edge-visit';
import { startTestApp, TestApp } from '../support/test-app';

/** Supertest keeps the body as bytes, whatever the media type. */
function readBytes(response: unknown, done: (error: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  const stream = response as NodeJS.ReadableStream;
  stream.on('error', (error) => done(error, Buffer.alloc(0)));
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

/** The text a PNG's QR code holds, read by jsQR from its pixels. */
function decodePng(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

/**
 * The text an SVG QR code holds: its path drawn onto pixels (the `qrcode` package writes each
 * row's dark runs as `M x y` / `m dx dy` moves and `h` strokes of one module's height), then
 * read like a PNG's. So the test reads what a scanner would see, not what the server meant.
 */
function decodeSvg(svg: string): string | undefined {
  const viewBox = /viewBox="0 0 (\d+) (\d+)"/.exec(svg);
  const path = /<path stroke="#000000" d="([^"]+)"/.exec(svg);
  if (viewBox === null || path === null) return undefined;
  const modules = Number(viewBox[1]);
  const scale = 8;
  const side = modules * scale;
  const pixels = new Uint8ClampedArray(side * side * 4).fill(255);
  let x = 0;
  let y = 0;
  for (const [, command, args] of path[1].matchAll(/([Mmh])([^Mmh]*)/g)) {
    const numbers = args
      .trim()
      .split(/[\s,]+/)
      .map(Number);
    if (command === 'M') [x, y] = numbers;
    if (command === 'm') [x, y] = [x + numbers[0], y + numbers[1]];
    if (command === 'h') {
      const row = Math.floor(y);
      for (let column = x; column < x + numbers[0]; column++) {
        for (let dy = 0; dy < scale; dy++) {
          for (let dx = 0; dx < scale; dx++) {
            const at = ((row * scale + dy) * side + column * scale + dx) * 4;
            pixels.fill(0, at, at + 3);
          }
        }
      }
      x += numbers[0];
    }
  }
  return jsQR(pixels, side, side)?.data;
}

describe('QR codes (e2e)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    // The consumer is driven by hand (drainOnce), so the recorded clicks are all there.
    t = await startTestApp({
      PROBES_ENABLED: 'false',
      CLICK_CONSUMER_ENABLED: 'false',
      REDIRECT_BASE_URL: 'https://go.linkpilot.test',
    });
    api = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
  });
  afterAll(() => t.close());

  const qrCode = (link: LinkBody, query = '', client = api): Promise<Response> =>
    client.get(`/v1/links/${link.linkId}/qr${query}`).buffer(true).parse(readBytes);
  const drain = () => t.app.get(ClickStreamConsumer).drainOnce();

  it('should answer an SVG by default that decodes to the link URL with qr=1', async () => {
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    const response = await qrCode(link);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^image\/svg\+xml/);
    const svg = (response.body as Buffer).toString('utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="512" height="512"/);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(decodeSvg(svg)).toBe(`https://go.linkpilot.test/r/${link.linkId}?qr=1`);
  });

  it.each([128, 300, 1024])(
    'should answer a %ipx PNG that decodes to the link URL',
    async (size) => {
      const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
      const response = await qrCode(link, `?format=png&size=${size}`);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('image/png');
      const png = PNG.sync.read(response.body as Buffer);
      expect([png.width, png.height]).toEqual([size, size]);
      expect(decodePng(response.body as Buffer)).toBe(`${link.linkpilotUrl}?qr=1`);
    },
  );

  it.each([
    ['?format=gif', 'format'],
    ['?format=', 'format'],
    ['?size=127', 'size'],
    ['?size=1025', 'size'],
    ['?size=abc', 'size'],
    ['?size=1e3', 'size'],
    ['?size=300.5', 'size'],
    ['?format=png&size=-5', 'size'],
    ['?colour=red', 'colour'],
  ])('should refuse %s with 400 VALIDATION_ERROR naming %s', async (query, field) => {
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    const response = await api.get(`/v1/links/${link.linkId}/qr${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(response.body.error)).toContain(field);
  });

  it("should answer 404 LINK_NOT_FOUND for an unknown, deleted or another creator's link, and 401 without a key", async () => {
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    const other = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
    const deleted = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    await api.delete(`/v1/links/${deleted.linkId}`).expect(200);
    for (const [client, id] of [
      [api, '01JQ2V6D8K3M5N7P9R1S3T5V7X'],
      [api, deleted.linkId],
      [other, link.linkId],
    ] as const) {
      const response = await client.get(`/v1/links/${id}/qr?format=png`);
      expect([id, response.status, response.body.error?.code]).toEqual([id, 404, 'LINK_NOT_FOUND']);
    }
    await t.http.get(`/v1/links/${link.linkId}/qr`).expect(401);
  });

  it('should record a scan as source qr, a plain click as link, and group the series by source', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const own = createApiClient(t, creator);
    const link = await createLinkViaApi(own, { originalUrl: buildAmazonUrl() });
    const scanned = new URL(
      decodePng((await qrCode(link, '?format=png', own)).body as Buffer) ?? '',
    );
    const path = `${scanned.pathname}${scanned.search}`;
    expect(path).toBe(`/r/${link.linkId}?qr=1`);
    for (let i = 0; i < 3; i++) {
      expect((await edgeVisit(t, path, { 'CF-IPCountry': 'US' })).status).toBe(302);
    }
    for (const plain of [
      `/r/${link.linkId}`,
      `/r/${link.linkId}?qr=0`,
      `/r/${link.linkId}?qr=10`,
    ]) {
      expect((await edgeVisit(t, plain, { 'CF-IPCountry': 'US' })).status).toBe(302);
    }
    await drain();

    const clicks = await own.get(`/v1/analytics/clicks?linkId=${link.linkId}&limit=10`).expect(200);
    const sources = (clicks.body.data.items as { source: string }[]).map((item) => item.source);
    expect(sources.sort()).toEqual(['link', 'link', 'link', 'qr', 'qr', 'qr']);

    for (const query of [
      'groupBy=source',
      `groupBy=source&linkId=${link.linkId}`,
      'groupBy=source&interval=hour',
    ]) {
      const series = await own.get(`/v1/analytics/timeseries?${query}`).expect(200);
      const totals = Object.fromEntries(
        (series.body.data.series as { key: string; buckets: { clicks: number }[] }[]).map(
          ({ key, buckets }) => [key, buckets.reduce((sum, bucket) => sum + bucket.clicks, 0)],
        ),
      );
      expect([query, totals]).toEqual([query, { link: 3, qr: 3 }]);
    }
    const conversions = await own.get('/v1/analytics/timeseries?groupBy=source&metric=conversions');
    expect(conversions.status).toBe(400);
    expect(conversions.body.error.details).toHaveProperty('groupBy');
  });

  it('should not forward the qr=1 marker to the destination of a link that forwards the query', async () => {
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl(), forwardQuery: true });
    const plain = new URL(
      (await edgeVisit(t, `/r/${link.linkId}?color=red`, { 'CF-IPCountry': 'US' })).headers
        .location,
    );
    const scanned = new URL(
      (await edgeVisit(t, `/r/${link.linkId}?qr=1&color=red`, { 'CF-IPCountry': 'US' })).headers
        .location,
    );
    expect(plain.searchParams.get('color')).toBe('red');
    expect(scanned.searchParams.has('qr')).toBe(false);
    expect(scanned.href).toBe(plain.href);
  });
});
