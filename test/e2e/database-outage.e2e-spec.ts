import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { startDatabaseProxy, TcpProxy } from '../support/tcp-proxy';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The API during a PostgreSQL outage, through a TCP proxy of the test's own in front of the
 * test database (never the machine's server itself): refused or stalled, a call answers 503
 * DATABASE_UNAVAILABLE with Retry-After within the pool's bounds, never 500 and never a hang.
 */
describe('API during a database outage (e2e)', () => {
  const BOUNDS = { DATABASE_STATEMENT_TIMEOUT_MS: '1000', DATABASE_CONNECT_TIMEOUT_MS: '500' };

  const expectUnavailable = async (t: TestApp, creator: TestCreator): Promise<void> => {
    const startedAt = Date.now();
    const response = await t.http.get('/v1/links').set('Authorization', creator.authorization);

    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('DATABASE_UNAVAILABLE');
    expect(response.headers['retry-after']).toBe('5');
    // Within the bounds (1 s statement, 1 s client-side margin), with room for a slow CI.
    expect(Date.now() - startedAt).toBeLessThan(4_000);
  };

  describe.each([
    ['refusing connections', (proxy: TcpProxy) => proxy.cut()],
    [
      'stalled (accepting, never answering)',
      (proxy: TcpProxy) => {
        proxy.stall();
        return Promise.resolve();
      },
    ],
  ])('with PostgreSQL %s', (_name, fault) => {
    let t: TestApp;
    let proxy: TcpProxy;
    let creator: TestCreator;

    beforeAll(async () => {
      proxy = await startDatabaseProxy(process.env.DATABASE_URL ?? '');
      t = await startTestApp({ DATABASE_URL: proxy.url, ...BOUNDS });
      creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    });
    afterAll(async () => {
      await t.close();
      await proxy.cut();
    });

    it('should answer 503 DATABASE_UNAVAILABLE with Retry-After', async () => {
      await t.http.get('/v1/links').set('Authorization', creator.authorization).expect(200);

      await fault(proxy);

      await expectUnavailable(t, creator);
    });
  });
});
