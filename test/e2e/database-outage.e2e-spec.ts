import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { createLink } from '../factories/link.factory';
import { edgeVisit } from '../support/edge-visit';
import { startDatabaseProxy, TcpProxy } from '../support/tcp-proxy';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

/**
 * The API and the edge during a PostgreSQL outage, through a TCP proxy of the test's own in
 * front of the test database (never the machine's server itself): refused or stalled, a call
 * answers 503 DATABASE_UNAVAILABLE with Retry-After within the pool's bounds, never 500 and
 * never a hang; a click on a link this node has seen answers 302 without waiting for
 * PostgreSQL, however old its cached creator profile; a link not cached yet is a 503.
 */
describe('API and edge during a database outage (e2e)', () => {
  const BOUNDS = { DATABASE_STATEMENT_TIMEOUT_MS: '1000', DATABASE_CONNECT_TIMEOUT_MS: '500' };

  /** How long a click served from memory may take here, on a slow CI machine included. */
  const CACHED_CLICK_MS = 400;

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
    const clock = new TestClock();
    let t: TestApp;
    let proxy: TcpProxy;
    let creator: TestCreator;
    let warmLinkId: string;
    let coldLinkId: string;

    beforeAll(async () => {
      proxy = await startDatabaseProxy(process.env.DATABASE_URL ?? '');
      t = await startTestApp({ DATABASE_URL: proxy.url, ...BOUNDS }, { clock });
      creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      warmLinkId = (await createLink(t.app, { creatorId: creator.creatorId })).id;
      // Never clicked: neither its record nor (for the edge) its creator is cached anywhere.
      const stranger = await createCreatorWithKey(t.app, { plan: 'publisher' });
      coldLinkId = (await createLink(t.app, { creatorId: stranger.creatorId })).id;

      await t.http.get('/v1/links').set('Authorization', creator.authorization).expect(200);
      // One click caches the warm link's record and its creator's profile on this node.
      await edgeVisit(t, `/r/${warmLinkId}`).expect(302);
      // Over the minute after which a profile used to be read again on the click itself.
      clock.advance(61_000);

      await fault(proxy);
    });
    afterAll(async () => {
      await t.close();
      await proxy.cut();
    });

    it('should answer the API 503 DATABASE_UNAVAILABLE with Retry-After', async () => {
      const startedAt = Date.now();
      const response = await t.http.get('/v1/links').set('Authorization', creator.authorization);

      expect(response.status).toBe(503);
      expect(response.body.error.code).toBe('DATABASE_UNAVAILABLE');
      expect(response.headers['retry-after']).toBe('5');
      // Within the bounds (1 s statement, 1 s client-side margin), with room for a slow CI.
      expect(Date.now() - startedAt).toBeLessThan(4_000);
    });

    it('should answer a click on a link seen before 302 at once, its creator profile a minute old', async () => {
      for (let click = 0; click < 3; click++) {
        const startedAt = Date.now();
        const response = await edgeVisit(t, `/r/${warmLinkId}`);

        expect(response.status).toBe(302);
        expect(Date.now() - startedAt).toBeLessThan(CACHED_CLICK_MS);
      }
    });

    it.each([
      ['the raw front (a plain click)', {}],
      ['the Fastify route (a click with an Origin)', { Origin: 'https://linkpilot.io' }],
    ])(
      'should answer a click on a link not cached 503 DATABASE_UNAVAILABLE with a short Retry-After, on %s',
      async (_front, headers) => {
        const startedAt = Date.now();
        const response = await edgeVisit(t, `/r/${coldLinkId}`, headers);

        expect(response.status).toBe(503);
        expect(response.headers['retry-after']).toBe('2');
        expect(response.headers['cache-control']).toBe('private, no-store');
        expect(response.body.error.code).toBe('DATABASE_UNAVAILABLE');
        expect(response.body.error.requestId).toBe(response.headers['x-request-id']);
        expect(Date.now() - startedAt).toBeLessThan(4_000);
      },
    );
  });
});
