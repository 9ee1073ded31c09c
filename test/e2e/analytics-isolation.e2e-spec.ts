import { setTimeout as delay } from 'node:timers/promises';
import { Client } from 'pg';
import type { Response } from 'supertest';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { createLink } from '../factories/link.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { edgeVisit } from '../support/edge-visit';
import { pollUntil } from '../support/poll';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Analytics reads beside the edge, on real PostgreSQL. A session of the test's own holds an
 * ACCESS EXCLUSIVE lock on the click rollup a read is answered from, so every analytics
 * statement on it waits in PostgreSQL (as the heaviest dashboard would, but
 * deterministically), and the test counts them in pg_locks. The edge's reads (link records,
 * creator profiles, and the quota seed, which counts the route days) never touch the
 * country rollup, and must not wait behind the series by country. PGlite runs one session, so no second one can
 * hold a lock: the embedded default shares its one connection (ANALYTICS_POOL_SIZE=0) and is
 * not tested here.
 */
const isEmbedded = process.env.ANALYTICS_POOL_SIZE === '0';

/** What the series by country is counted from (docs/analytics.md). */
const AUDIENCE_ROLLUP = 'click_rollup_country_hours';
/** What the summary is counted from. */
const ROUTE_DAYS_ROLLUP = 'click_rollup_route_days';
/** The dashboard call (1,000 days), by country (within the bounds: no clicks). */
const HEAVY_TIMESERIES =
  '/v1/analytics/timeseries?interval=day&groupBy=country&from=2024-03-02&to=2026-11-26';
const PARALLEL_CALLS = 30;
const ANALYTICS_POOL_SIZE = 2;
const QUEUE_TIMEOUT_MS = 1_000;

/** A session holding a rollup, so analytics reads from it wait. */
async function lockRollup(table: string): Promise<Client> {
  const session = new Client({ connectionString: process.env.DATABASE_URL });
  await session.connect();
  await session.query('BEGIN');
  await session.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return session;
}

/** Statements of this database waiting for the locked rollup. */
async function statementsWaitingOnLock(session: Client, table: string): Promise<number> {
  const { rows } = await session.query<{ waiting: number }>(
    `SELECT count(*)::int AS waiting
       FROM pg_locks
      WHERE NOT granted
        AND relation = '${table}'::regclass
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  return rows[0].waiting;
}

/**
 * A suite's own app with `env` (clicks left unconsumed), an Enterprise caller, a session that
 * watches pg_locks, and `lock` to hold a rollup for a test; all closed after the suite.
 */
function analyticsSuite(env: Record<string, string>) {
  const suite = {
    lock: async (table: string) => (suite.locker = await lockRollup(table)),
  } as {
    t: TestApp;
    api: ApiClient;
    observer: Client;
    locker?: Client;
    lock(table: string): Promise<Client>;
  };
  beforeAll(async () => {
    suite.t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false', ...env });
    const caller = await createCreatorWithKey(suite.t.app, { plan: 'enterprise' });
    suite.api = createApiClient(suite.t, caller);
    suite.observer = new Client({ connectionString: process.env.DATABASE_URL });
    await suite.observer.connect();
  });
  afterAll(async () => {
    await suite.locker?.end();
    await suite.observer.end();
    await suite.t.close();
  });
  return suite;
}

(isEmbedded ? describe.skip : describe)('Analytics reads beside the edge (e2e)', () => {
  const suite = analyticsSuite({
    ANALYTICS_POOL_SIZE: String(ANALYTICS_POOL_SIZE),
    ANALYTICS_QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS),
    ANALYTICS_STATEMENT_TIMEOUT_MS: '20000',
    // The slots, not the points budget (which would turn most of the 30 calls away at once).
    ANALYTICS_POINTS_PER_SECOND: '100000000',
  });

  /** Links of creators never clicked: neither record nor profile is cached anywhere yet. */
  async function coldLinks(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const owner: TestCreator = await createCreatorWithKey(suite.t.app, { plan: 'publisher' });
      ids.push((await createLink(suite.t.app, { creatorId: owner.creatorId })).id);
    }
    return ids;
  }

  it('should serve redirects of uncached links while every analytics slot is busy', async () => {
    const linkIds = await coldLinks(20);
    const locker = await suite.lock(AUDIENCE_ROLLUP);
    const startedAt = Date.now();
    const answered: { response: Response; elapsedMs: number }[] = [];
    const calls = Array.from({ length: PARALLEL_CALLS }, () =>
      suite.api.get(HEAVY_TIMESERIES).then((response) => {
        answered.push({ response, elapsedMs: Date.now() - startedAt });
        return response;
      }),
    );
    await pollUntil(
      () => statementsWaitingOnLock(suite.observer, AUDIENCE_ROLLUP),
      (waiting) => waiting >= ANALYTICS_POOL_SIZE,
    );

    const redirects = await Promise.all(linkIds.map((id) => edgeVisit(suite.t, `/r/${id}`)));
    const otherApiCall = await suite.api.get('/v1/links');
    // The calls beyond the slots wait ANALYTICS_QUEUE_TIMEOUT_MS in line, then are turned away.
    await pollUntil(
      () => Promise.resolve(answered.length),
      (count) => count >= PARALLEL_CALLS - ANALYTICS_POOL_SIZE,
    );
    // Read while the lock is still held: all of the above happened with every slot taken.
    const waitingMeanwhile = await statementsWaitingOnLock(suite.observer, AUDIENCE_ROLLUP);
    await locker.query('COMMIT');
    await Promise.all(calls);

    expect(redirects.map((response) => response.status)).toEqual(linkIds.map(() => 302));
    expect(otherApiCall.status).toBe(200);
    // Never more analytics statements in PostgreSQL than the pool has connections.
    expect(waitingMeanwhile).toBe(ANALYTICS_POOL_SIZE);
    const turnedAway = answered.slice(0, PARALLEL_CALLS - ANALYTICS_POOL_SIZE);
    for (const { response, elapsedMs } of turnedAway) {
      expect(response.status).toBe(503);
      expect(response.body.error.code).toBe('ANALYTICS_BUSY');
      expect(response.body.error.message).toContain('ANALYTICS_POOL_SIZE');
      expect(response.headers['retry-after']).toBe('2');
      expect(elapsedMs).toBeGreaterThanOrEqual(QUEUE_TIMEOUT_MS - 50);
    }
    // The two that held the slots answer once the lock goes.
    const served = answered.slice(PARALLEL_CALLS - ANALYTICS_POOL_SIZE);
    expect(served.map(({ response }) => response.status)).toEqual([200, 200]);
  });
});

(isEmbedded ? describe.skip : describe)('Analytics statement timeout (e2e)', () => {
  const suite = analyticsSuite({
    ANALYTICS_STATEMENT_TIMEOUT_MS: '300',
    DATABASE_STATEMENT_TIMEOUT_MS: '20000',
  });

  it("should cancel an analytics statement after its own timeout, not the edge's", async () => {
    const locker = await suite.lock(ROUTE_DAYS_ROLLUP);
    const startedAt = Date.now();
    const response = await suite.api.get(
      '/v1/analytics/summary?periodStart=2024-06-01&periodEnd=2024-06-30',
    );
    const elapsedMs = Date.now() - startedAt;
    await locker.query('COMMIT');

    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('ANALYTICS_BUSY');
    expect(response.body.error.message).toContain('ANALYTICS_STATEMENT_TIMEOUT_MS');
    expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    // Far below the serving pool's 20 s: the analytics pool's 300 ms applied.
    expect(elapsedMs).toBeLessThan(10_000);
  });
});

(isEmbedded ? describe.skip : describe)('Analytics reads of one call (e2e)', () => {
  const QUEUE_MS = 500;
  const suite = analyticsSuite({
    ANALYTICS_POOL_SIZE: '1',
    ANALYTICS_QUEUE_TIMEOUT_MS: String(QUEUE_MS),
  });

  it('should run a summary in one turn: its ledger never queues behind its own clicks', async () => {
    const locker = await suite.lock(ROUTE_DAYS_ROLLUP);
    const summary = suite.api
      .get('/v1/analytics/summary?periodStart=2024-06-01&periodEnd=2024-06-30')
      .then((response) => response);
    await pollUntil(
      () => statementsWaitingOnLock(suite.observer, ROUTE_DAYS_ROLLUP),
      (waiting) => waiting === 1,
    );
    // Longer than any read may queue: a second turn of the same call would be refused by now.
    await delay(QUEUE_MS * 2);
    await locker.query('COMMIT');
    const response = await summary;

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ periodStart: '2024-06-01', totalClicks: 0 });
  });
});

(isEmbedded ? describe.skip : describe)('An analytics slot resting after its read (e2e)', () => {
  /** The read is held this long in PostgreSQL; at a share of 50% the slot then rests as long. */
  const HELD_MS = 800;
  const suite = analyticsSuite({
    ANALYTICS_POOL_SIZE: '1',
    // No waiting in line: a read finding the slot resting is refused at once.
    ANALYTICS_QUEUE_TIMEOUT_MS: '0',
    ANALYTICS_PRIMARY_SHARE_PERCENT: '50',
  });

  const SUMMARY = '/v1/analytics/summary?periodStart=2024-06-01&periodEnd=2024-06-30';

  it('should refuse the next read while the slot rests, then serve it', async () => {
    const locker = await suite.lock(ROUTE_DAYS_ROLLUP);
    const first = suite.api.get(SUMMARY).then((response) => response);
    await pollUntil(
      () => statementsWaitingOnLock(suite.observer, ROUTE_DAYS_ROLLUP),
      (waiting) => waiting === 1,
    );
    await delay(HELD_MS);
    await locker.query('COMMIT');
    expect((await first).status).toBe(200);
    const answeredAt = Date.now();

    // The caller had its answer; the slot rests about as long as the read kept the primary.
    const refused = await suite.api.get(SUMMARY);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('ANALYTICS_BUSY');
    expect(refused.body.error.message).toContain('ANALYTICS_PRIMARY_SHARE_PERCENT');
    expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);

    const served = await pollUntil(
      () => suite.api.get(SUMMARY),
      (response) => response.status === 200,
    );
    expect(served.body.data).toMatchObject({ periodStart: '2024-06-01', totalClicks: 0 });
    // Not before the rest was over (the read took HELD_MS at least).
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(HELD_MS - 50);
  });
});
