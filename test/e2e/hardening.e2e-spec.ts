import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { SerialisedLinkUrls1764100000000 } from '../../migrations/1764100000000-serialised-link-urls';
import { buildAmazonUrl } from '../factories/api-link.factory';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { createLink } from '../factories/link.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
/** What a Location header may hold: printable ASCII, no space. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * Input hardening: each finding of the hardening review, as the request that found it. Every
 * test here failed before the change (a crash, a 500, a wrong status or a wrong body).
 */
describe('Input hardening (e2e)', () => {
  let t: TestApp;
  let creator: TestCreator;
  let api: ApiClient;
  let nextIp = 1;
  const freshIp = (): string => `203.0.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;

  beforeAll(async () => {
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false' });
    creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    api = createApiClient(t, creator);
  });
  afterAll(() => t.close());

  const visit = (path: string, headers: Record<string, string> = {}, method = 'get') =>
    (method === 'head' ? t.http.head(path) : t.http.get(path))
      .set({ 'User-Agent': BROWSER_UA, 'X-Forwarded-For': freshIp(), ...headers })
      .redirects(0);
  const expectAlive = async () => expect((await t.http.get('/v1/health')).status).toBe(200);
  const linkCount = async () =>
    (await api.get('/v1/links?limit=1').expect(200)).body.data.pagination.total as number;

  describe('URLs the service stores and serves', () => {
    it.each([
      ['CR/LF', 'https://example.com/a\r\nX-Injected: 1'],
      ['a TAB', 'https://example.com/a\tb'],
      ['an ESC', 'https://example.com/a\u001b[31mb'],
      ['a DEL', 'https://example.com/a\u007fb'],
      ['a C1 control (NEL)', 'https://example.com/a?q=\u0085'],
    ])('should refuse a URL holding %s on create, bulk and route', async (_name, originalUrl) => {
      const before = await linkCount();
      const created = await api.post('/v1/links', { originalUrl }).expect(400);
      expect(created.body.error.code).toBe('VALIDATION_ERROR');
      expect(created.body.error.details.originalUrl).toEqual([
        expect.stringContaining('control characters'),
      ]);
      const bulk = await api.post('/v1/links/bulk', { links: [{ originalUrl }] }).expect(207);
      expect(bulk.body.data.failed[0].error.details.originalUrl).toEqual([
        expect.stringContaining('control characters'),
      ]);
      const route = await api.post('/v1/route', { originalUrl }).expect(400);
      expect(route.body.error.details.originalUrl).toEqual([
        expect.stringContaining('control characters'),
      ]);
      expect(await linkCount()).toBe(before);
    });

    it('should create a link whose slug decodes to control characters, titled without them', async () => {
      const originalUrl = 'https://www.amazon.com/Some-P%00roduct-%0D%0AName/dp/B0AAAA0AAA';
      const created = await api.post('/v1/links', { originalUrl }).expect(201);
      expect(created.body.data.link.title).toBe('Some P roduct Name');
      const bulk = await api.post('/v1/links/bulk', { links: [{ originalUrl }] }).expect(207);
      expect(bulk.body.data.created).toHaveLength(1);
    });

    it('should refuse UTM values holding control characters on create and update', async () => {
      const utmOverride = { utm_campaign: 'spring\r\nSet-Cookie: a=b' };
      const created = await api
        .post('/v1/links', { originalUrl: 'https://www.amazon.com/dp/B0BDHWDR12', utmOverride })
        .expect(400);
      expect(created.body.error.details['utmOverride.utm_campaign']).toBeDefined();
      const link = (
        await api.post('/v1/links', { originalUrl: 'https://www.amazon.com/dp/B0BDHWDR12' })
      ).body.data.link;
      const updated = await api.patch(`/v1/links/${link.linkId}`, { utmOverride }).expect(400);
      expect(updated.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('should store and serve non-ASCII URLs in their WHATWG serialisation on every path', async () => {
      const response = await api
        .post('/v1/links', { originalUrl: 'https://shop.café.example/p/ä b?kw=café€' })
        .expect(201);
      const link = response.body.data.link;
      expect(link.originalUrl).toBe(
        'https://shop.xn--caf-dma.example/p/%C3%A4%20b?kw=caf%C3%A9%E2%82%AC',
      );
      expect(link.routedUrl).toBe(link.originalUrl);
      for (const [name, headers, method] of [
        ['a click', {}, 'get'],
        ['a HEAD', {}, 'head'],
        ['a bot', { 'X-Bot-Score': '5' }, 'get'],
        ['a link preview', { 'User-Agent': 'facebookexternalhit/1.1' }, 'get'],
        ['a click with an Origin (Fastify route)', { Origin: 'https://x.example' }, 'get'],
      ] as const) {
        const answer = await visit(`/r/${link.linkId}`, headers, method);
        expect([name, answer.status, answer.headers.location]).toEqual([
          name,
          302,
          link.originalUrl,
        ]);
      }
    });

    it('should serve a header-safe Location for a link stored raw before serialisation', async () => {
      const raw = 'https://shop.example.com/a b?kw=café€\r\nX-Injected: 1';
      const link = await createLink(t.app, { creatorId: creator.creatorId, routedUrl: raw });
      const variants: Record<string, string>[] = [
        {},
        { Origin: 'https://x.example' },
        { 'X-Bot-Score': '5' },
      ];
      for (const headers of variants) {
        for (const method of ['get', 'head']) {
          const answer = await visit(`/r/${link.id}`, headers, method);
          expect(answer.status).toBe(302);
          expect(answer.headers.location).toMatch(HEADER_SAFE);
          expect(answer.headers['x-injected']).toBeUndefined();
          expect(() => new URL(answer.headers.location)).not.toThrow();
        }
      }
      await expectAlive();
    });

    it('should rewrite links stored raw to their serialisation in the migration', async () => {
      const raw = 'https://shop.example.com/a b?kw=café€';
      const link = await createLink(t.app, { creatorId: creator.creatorId, routedUrl: raw });
      const dataSource = t.app.get(DataSource);
      const runner = dataSource.createQueryRunner();
      try {
        await new SerialisedLinkUrls1764100000000().up(runner);
      } finally {
        await runner.release();
      }
      const [row] = await dataSource.query<{ original_url: string; routed_url: string }[]>(
        'SELECT original_url, routed_url FROM links WHERE id = $1',
        [link.id],
      );
      expect(row).toEqual({
        original_url: 'https://shop.example.com/a%20b?kw=caf%C3%A9%E2%82%AC',
        routed_url: 'https://shop.example.com/a%20b?kw=caf%C3%A9%E2%82%AC',
      });
    });
  });

  describe('link ids on /r/ and in the API', () => {
    it('should treat every spelling of an id as the one link, and evict them all on delete', async () => {
      const link = await createLink(t.app, { creatorId: creator.creatorId });
      const lower = link.id.toLowerCase();
      // Crockford base 32: O reads as 0, I and L as 1.
      const typed = lower.replace(/0/g, 'o').replace(/1/g, 'l');
      for (const spelling of [link.id, lower, typed]) {
        expect((await visit(`/r/${spelling}`)).status).toBe(302);
      }
      const fetched = await api.get(`/v1/links/${lower}`).expect(200);
      expect(fetched.body.data.link.linkId).toBe(link.id);
      const deleted = await api.delete(`/v1/links/${typed}`).expect(200);
      expect(deleted.body.data).toEqual({ linkId: link.id, deleted: true });
      for (const spelling of [link.id, lower, typed]) {
        const answer = await visit(`/r/${spelling}`);
        expect(answer.status).toBe(404);
        expect(answer.body.error.code).toBe('LINK_NOT_FOUND');
      }
    });

    it.each([
      ['a word', 'hello'],
      ['26 characters outside Crockford base 32', 'UUUUUUUUUUUUUUUUUUUUUUUUUU'],
      ['a ULID past the 48-bit timestamp', '8ZZZZZZZZZZZZZZZZZZZZZZZZZ'],
      ['an encoded id', '%30%31ARZ'],
      ['a long id', 'A'.repeat(3000)],
    ])('should answer %s with a 404 in the envelope', async (_name, id) => {
      const variants: Record<string, string>[] = [{}, { Origin: 'https://x.example' }];
      for (const headers of variants) {
        const answer = await visit(`/r/${id}`, headers);
        expect(answer.status).toBe(404);
        expect(answer.body).toEqual({
          success: false,
          error: {
            code: 'LINK_NOT_FOUND',
            message: expect.any(String),
            requestId: expect.any(String),
          },
        });
      }
    });

    it('should answer an undecodable path in the envelope, on /r/ as a 404', async () => {
      for (const path of ['/r/%E0%A4%A', '/r/%ZZ']) {
        const answer = await visit(path, { Origin: 'https://x.example' });
        expect(answer.status).toBe(404);
        expect(answer.body.error).toMatchObject({
          code: 'LINK_NOT_FOUND',
          requestId: expect.any(String),
        });
      }
      const api = await t.http.get('/v1/links/%ZZ').expect(400);
      expect(api.body.error.code).toBe('VALIDATION_ERROR');
    });
  });

  describe('text that is not well-formed Unicode', () => {
    const amazon = 'https://www.amazon.com/dp/B08N5WRWNW';
    const postRaw = (path: string, json: string, bytes: number[] = []) => {
      const [before, after] = json.split('<BYTES>');
      const body = Buffer.concat([
        Buffer.from(before),
        Buffer.from(bytes),
        Buffer.from(after ?? ''),
      ]);
      // Sent as bytes: supertest would serialise a Buffer as JSON.
      const asIs = (bytes: Buffer) => bytes as unknown as string;
      return api.post(path).set('Content-Type', 'application/json').serialize(asIs).send(body);
    };
    const expectRefused = (response: Response, field: string) => {
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details).toEqual({
        [field]: [expect.stringContaining('well-formed')],
      });
    };

    it.each([
      [
        'a UTM value',
        { originalUrl: amazon, utmOverride: { utm_source: 'x\udfffy' } },
        'utmOverride.utm_source',
      ],
      [
        'networkOverride.reason',
        {
          originalUrl: amazon,
          networkOverride: { networkId: 'amazon_associates', reason: 'a\ud800' },
        },
        'networkOverride.reason',
      ],
      ['a title (a text column)', { originalUrl: amazon, title: 'a\udfffb' }, 'title'],
      ['originalUrl', { originalUrl: `${amazon}?q=\ud83d` }, 'originalUrl'],
      [
        'a key of a JSON object',
        { originalUrl: amazon, utmOverride: { ['utm_\udfff']: 'x' } },
        // Named with the escape, so that strict JSON parsers can read the answer.
        'utmOverride.utm_\\udfff',
      ],
      ['a top-level key', { originalUrl: amazon, ['\ud800']: 1 }, '\\ud800'],
    ])(
      'should refuse a lone surrogate in %s on create with a 400 naming it',
      async (_name, body, field) => {
        const before = await linkCount();
        expectRefused(await api.post('/v1/links', body).expect(400), field);
        expect(await linkCount()).toBe(before);
      },
    );

    it('should refuse a lone surrogate on POST /v1/route with a 400 naming the field', async () => {
      expectRefused(
        await api.post('/v1/route', { originalUrl: amazon, category: '\udc00' }).expect(400),
        'category',
      );
    });

    it.each([
      ['a UTM value', { utmOverride: { utm_source: 'x\udfffy' } }, 'utmOverride.utm_source'],
      [
        'networkOverride.reason',
        { networkOverride: { networkId: 'amazon_associates', reason: '\udfff' } },
        'networkOverride.reason',
      ],
      ['notes', { notes: 'a\ud800b' }, 'notes'],
    ])(
      'should refuse a lone surrogate in %s on PATCH and change nothing',
      async (_name, body, field) => {
        const link = await createLink(t.app, { creatorId: creator.creatorId });
        const before = (await api.get(`/v1/links/${link.id}`).expect(200)).body.data.link;
        expectRefused(await api.patch(`/v1/links/${link.id}`, body).expect(400), field);
        expect((await api.get(`/v1/links/${link.id}`).expect(200)).body.data.link).toEqual(before);
      },
    );

    it.each([
      ['invalid UTF-8 in a value', '"title":"a<BYTES>b"', [0xff]],
      ['a surrogate as UTF-8 bytes in a value', '"title":"a<BYTES>"', [0xed, 0xbf, 0xbf]],
      ['an overlong form in a nested key', '"utmOverride":{"utm_<BYTES>":"x"}', [0xc0, 0xae]],
    ])(
      'should refuse a raw body holding %s with a 400, not store U+FFFD',
      async (_name, field, bytes) => {
        const before = await linkCount();
        const json = `{"originalUrl":"${amazon}",${field}}`;
        const response = await postRaw('/v1/links', json, bytes);
        expect([response.status, response.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
        expect(response.body.error.details).toEqual({ body: [expect.stringContaining('UTF-8')] });
        expect(await linkCount()).toBe(before);
      },
    );

    it.each([
      ['a value as WTF-8 bytes', '/v1/links?search=%ED%BF%BF', 'search'],
      ['a value as invalid UTF-8', '/v1/links?search=a%FFb', 'search'],
      // Each byte that is not UTF-8 is named as the lone surrogate U+DC00 + byte.
      ['a key as WTF-8 bytes', '/v1/links?%ED%A0%80=1', '\\udced\\udca0\\udc80'],
      ['an analytics filter', '/v1/analytics/clicks?linkId=%ED%BF%BF', 'linkId'],
    ])('should refuse %s in the query with a 400 naming it', async (_name, path, field) => {
      expectRefused(await api.get(path).expect(400), field);
    });

    it('should refuse a surrogate as UTF-8 bytes in a path id with a 400', async () => {
      const response = await api.get('/v1/links/%ED%BF%BF').expect(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('should store and serve U+FFFD, a BOM and non-characters exactly as sent', async () => {
      const text = '\ufffd\ufeff\ufffe\uffff\u{1fffe}\u{10ffff}\ufdd0';
      const created = await api
        .post('/v1/links', {
          originalUrl: buildAmazonUrl(),
          title: text,
          utmOverride: { utm_source: text },
          networkOverride: { networkId: 'amazon_associates', reason: text },
        })
        .expect(201);
      const stored = (await api.get(`/v1/links/${created.body.data.link.linkId}`).expect(200)).body
        .data.link;
      expect(stored.title).toBe(text);
      expect(stored.utmOverride).toEqual({ utm_source: text });
      expect(stored.networkOverride).toEqual({ networkId: 'amazon_associates', reason: text });
      const search = await api
        .get(`/v1/links?search=${encodeURIComponent('\ufffd\ufeff')}`)
        .expect(200);
      expect(search.body.data.items.map((item: { linkId: string }) => item.linkId)).toEqual([
        stored.linkId,
      ]);
    });
  });

  describe('bounded inputs', () => {
    it('should refuse a 5,000-deep JSON body, and 33 levels, with a 400', async () => {
      for (const depth of [5000, 33]) {
        const body = '{"originalUrl":' + '['.repeat(depth - 1) + ']'.repeat(depth - 1) + '}';
        const response = await api
          .post('/v1/links')
          .set('Content-Type', 'application/json')
          .send(body)
          .expect(400);
        expect(response.body.error).toMatchObject({
          code: 'VALIDATION_ERROR',
          message: expect.stringContaining('deeper than 32 levels'),
        });
      }
      const shallow = await api
        .post('/v1/links')
        .set('Content-Type', 'application/json')
        .send('{"originalUrl":' + '['.repeat(31) + ']'.repeat(31) + '}')
        .expect(400);
      expect(shallow.body.error.details.originalUrl).toBeDefined();
    });

    it.each([
      ['a page past the bound', 'page=99999999999999999999', 'page', '100000'],
      ['a page one past the bound', 'page=100001', 'page', '100000'],
      ['an exponent', 'limit=1e2', 'limit', '100'],
      ['a hexadecimal limit', 'limit=0x10', 'limit', '100'],
      ['a signed page', 'page=+2', 'page', '100000'],
      ['a repeated page', 'page=1&page=2', 'page', '100000'],
    ])('should refuse %s with a 400 naming the bound', async (_name, query, field, bound) => {
      for (const path of ['/v1/links', '/v1/analytics/clicks']) {
        const response = await api.get(`${path}?${query}`).expect(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
        expect(response.body.error.details[field]).toEqual([expect.stringContaining(bound)]);
      }
    });

    it.each([
      [
        'a title on create',
        'post',
        '/v1/links',
        { originalUrl: 'https://example.com/', title: 'a\u0000b' },
        'title',
      ],
      [
        'a key',
        'post',
        '/v1/route',
        { originalUrl: 'https://example.com/', ['a\u0000']: 1 },
        'a\u0000',
      ],
    ])(
      'should refuse a NUL in %s with a 400 naming the field',
      async (_name, method, path, body, field) => {
        const before = await linkCount();
        const response = await (
          method === 'post' ? api.post(path, body) : api.patch(path, body)
        ).expect(400);
        expect(response.body.error.details[field]).toEqual([expect.stringContaining('NUL')]);
        expect(await linkCount()).toBe(before);
      },
    );

    it('should fail a bulk item holding a NUL alone, in the 207', async () => {
      const response = await api
        .post('/v1/links/bulk', {
          links: [
            { originalUrl: 'https://example.com/nul', title: '\u0000' },
            { originalUrl: 'https://example.com/kept' },
          ],
        })
        .expect(207);
      expect(response.body.data).toMatchObject({ totalCreated: 1, totalFailed: 1 });
      expect(response.body.data.failed[0]).toMatchObject({
        index: 0,
        error: { code: 'VALIDATION_ERROR', details: { title: [expect.stringContaining('NUL')] } },
      });
    });

    it.each(['search=%00', 'groupId=a%00', 'merchantId=%00'])(
      'should refuse a NUL in the query (%s) with a 400',
      async (query) => {
        const response = await api.get(`/v1/links?${query}`).expect(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
      },
    );

    it('should refuse a NUL in a PATCH with a 400 and change nothing', async () => {
      const link = await createLink(t.app, { creatorId: creator.creatorId });
      await api.patch(`/v1/links/${link.id}`, { notes: 'a\u0000b' }).expect(400);
      expect((await api.get(`/v1/links/${link.id}`).expect(200)).body.data.link.notes).toBeNull();
    });

    it.each(['createdBefore=20260301', 'createdAfter=2026-02-30', 'createdAfter=+020260-01-01'])(
      'should refuse a date-time Date cannot read (%s) with a 400',
      async (query) => {
        const response = await api.get(`/v1/links?${query}`).expect(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
      },
    );

    it('should answer an over-long target on the Fastify route of /r/ with 414 in the envelope', async () => {
      const link = await createLink(t.app, { creatorId: creator.creatorId });
      const answer = await visit(`/r/${link.id}?a=${'a'.repeat(9000)}`, {
        Origin: 'https://x.example',
      });
      expect(answer.status).toBe(414);
      expect(answer.body.error.code).toBe('URI_TOO_LONG');
    });

    it('should not redirect to https on a forwarded host with an impossible port', async () => {
      const response = await t.http
        .get('/v1/health')
        .set({ 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'linkpilot.io:99999' })
        .redirects(0);
      expect(response.status).toBe(200);
      const upgraded = await t.http
        .get('/v1/health')
        .set({ 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'linkpilot.io:8443' })
        .redirects(0);
      expect([upgraded.status, upgraded.headers.location]).toEqual([
        301,
        'https://linkpilot.io:8443/v1/health',
      ]);
    });

    it('should accept the deepest page', async () => {
      const response = await api.get('/v1/links?page=100000&limit=100').expect(200);
      expect(response.body.data.items).toEqual([]);
    });

    it('should answer a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await api
        .post('/v1/links')
        .set('Content-Type', 'application/json')
        .send(
          JSON.stringify({ originalUrl: 'https://example.com/', notes: 'x'.repeat(1024 * 1024) }),
        )
        .expect(413);
      expect(response.body).toEqual({
        success: false,
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          message: expect.stringContaining('1048576 bytes'),
          requestId: expect.any(String),
        },
      });
    });

    it('should answer a request target over 8,192 characters with 414 in the envelope', async () => {
      const response = await api.get(`/v1/links?search=${'a'.repeat(8200)}`).expect(414);
      expect(response.body.error.code).toBe('URI_TOO_LONG');
    });

    it('should answer headers over 16 KiB with 431 in the envelope', async () => {
      // A raw socket: clients refuse to send headers this large through their own checks.
      const server = await listening(t);
      const { port } = server.address() as AddressInfo;
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () =>
          socket.write(
            `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
          ),
        );
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString()));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 431 /);
      const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
      expect(body.error.code).toBe('HEADERS_TOO_LARGE');
      await new Promise((resolve) => server.close(resolve));
      await expectAlive();
    });
  });
});

/** A second listener on the app's server, on a free loopback port (closed by the test). */
async function listening(t: TestApp): Promise<net.Server> {
  const server = net.createServer((socket) => t.app.getHttpServer().emit('connection', socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
