import { Client } from 'pg';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A statement of the serving pool cut off at its timeout, on real PostgreSQL: a session of
 * the test's own holds an ACCESS EXCLUSIVE lock on `links`, so the link list waits in
 * PostgreSQL until DATABASE_STATEMENT_TIMEOUT_MS cancels it. The database answered all
 * along: that is no outage. PGlite runs one session, so no second one can hold a lock.
 */
const isEmbedded = process.env.ANALYTICS_POOL_SIZE === '0';
const STATEMENT_TIMEOUT_MS = 300;

(isEmbedded ? describe.skip : describe)('Statement timeout on the serving pool (e2e)', () => {
  let t: TestApp;
  let api: ApiClient;
  let locker: Client | undefined;

  beforeAll(async () => {
    t = await startTestApp({
      CLICK_CONSUMER_ENABLED: 'false',
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    });
    api = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'enterprise' }));
    // Warm: the key and creator are read before the lock is taken.
    await api.get('/v1/links').expect(200);
  });
  afterAll(async () => {
    await locker?.end();
    await t.close();
  });

  it('should answer 503 DATABASE_STATEMENT_TIMEOUT, not DATABASE_UNAVAILABLE', async () => {
    locker = new Client({ connectionString: process.env.DATABASE_URL });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE links IN ACCESS EXCLUSIVE MODE');
    const startedAt = Date.now();
    const response = await api.get('/v1/links');
    const elapsedMs = Date.now() - startedAt;
    await locker.query('COMMIT');

    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('DATABASE_STATEMENT_TIMEOUT');
    expect(response.body.error.message).toContain('DATABASE_STATEMENT_TIMEOUT_MS');
    expect(response.body.error.message).toContain('the database is up');
    expect(response.headers['retry-after']).toBe('5');
    expect(elapsedMs).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 50);
    // The same call answers once the lock is gone.
    await api.get('/v1/links').expect(200);
  });
});
