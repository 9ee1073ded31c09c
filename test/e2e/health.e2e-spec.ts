import { createCreatorWithKey } from '../factories/creator.factory';
import { startDatabaseProxy, TcpProxy } from '../support/tcp-proxy';
import { startTestApp, TestApp } from '../support/test-app';

describe('GET /v1/health (e2e)', () => {
  describe('when PostgreSQL and the key-value store answer', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it('should report ok without authentication, open to any origin', async () => {
      const response = await t.http.get('/v1/health').set('Origin', 'https://anywhere.example');
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.body).toEqual({
        success: true,
        data: {
          status: 'ok',
          version: 'v1',
          kvLatencyMs: expect.any(Number),
          timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          checks: {
            database: { status: 'ok', latencyMs: expect.any(Number) },
            kv: { status: 'ok', latencyMs: expect.any(Number) },
            // The bundled snapshot or whatever a parallel FX test stored; never part of status.
            fx: { status: expect.stringMatching(/^(ok|stale)$/), ageHours: expect.any(Number) },
          },
        },
      });
      expect(response.body.data.kvLatencyMs).toBeGreaterThanOrEqual(0);
    });
  });

  describe('when Redis is unreachable', () => {
    let t: TestApp;
    beforeAll(async () => {
      // Port 9 (discard) on loopback: nothing listens, connections are refused at once.
      t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:9', HEALTH_TIMEOUT_MS: '500' });
    });
    afterAll(() => t.close());

    it('should report degraded, naming the store', async () => {
      const response = await t.http.get('/v1/health');
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        status: 'degraded',
        version: 'v1',
        checks: { database: { status: 'ok' }, kv: { status: 'unreachable' } },
      });
    });

    it('should answer API calls from PostgreSQL, rate-limited in-process, rather than hang', async () => {
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const response = await t.http.get('/v1/account').set('Authorization', creator.authorization);
      expect(response.status).toBe(200);
      expect(response.headers['x-ratelimit-remaining']).toBe('59');
    });
  });

  describe('when PostgreSQL becomes unreachable', () => {
    let t: TestApp;
    let proxy: TcpProxy;
    beforeAll(async () => {
      proxy = await startDatabaseProxy(process.env.DATABASE_URL ?? '');
      t = await startTestApp({ DATABASE_URL: proxy.url, HEALTH_TIMEOUT_MS: '500' });
    });
    afterAll(() => t.close());

    it('should keep running and report degraded, naming the database', async () => {
      await t.http.get('/v1/health').expect(200);
      await proxy.cut();
      const response = await t.http.get('/v1/health');
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        status: 'degraded',
        checks: { database: { status: 'unreachable' }, kv: { status: 'ok' } },
      });
    });
  });
});
