import { startTestApp, TestApp } from '../support/test-app';

describe('GET /livez and GET /readyz (e2e)', () => {
  describe('when PostgreSQL and the key-value store answer', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it.each([
      ['/livez', { status: 'ok' }],
      ['/readyz', { status: 'ok', checks: { database: 'ok', migrations: 'ok', kv: 'ok' } }],
    ])('should answer %s 200 without authentication, outside /v1', async (path, body) => {
      const response = await t.http.get(path);
      expect(response.status).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.body).toEqual(body);
    });

    it('should keep them out of /v1, and document them at the site root', async () => {
      await t.http.get('/v1/livez').expect(404);
      const document = await t.http.get('/docs-json').expect(200);
      const paths = document.body.paths as Record<string, { servers?: { url: string }[] }>;
      for (const path of ['/livez', '/readyz']) {
        expect({ path, servers: paths[path]?.servers?.map((server) => server.url) }).toEqual({
          path,
          servers: ['/'],
        });
      }
    });
  });

  describe('when the key-value store is unreachable', () => {
    let t: TestApp;
    beforeAll(async () => {
      // Port 9 (discard) on loopback: nothing listens, connections are refused at once.
      t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:9', HEALTH_TIMEOUT_MS: '500' });
    });
    afterAll(() => t.close());

    it('should stay live and ready (it serves without Redis), naming the store', async () => {
      await t.http.get('/livez').expect(200);
      const response = await t.http.get('/readyz');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        status: 'ok',
        checks: { database: 'ok', migrations: 'ok', kv: 'unreachable' },
      });
    });
  });
});
