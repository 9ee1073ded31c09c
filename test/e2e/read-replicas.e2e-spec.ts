import { Client } from 'pg';
import { createCreatorWithKey } from '../factories/creator.factory';
import { createLink } from '../factories/link.factory';
import { insertClicks } from '../factories/click.factory';
import { AppMetrics } from '../../src/metrics/app-metrics';
import { ApiClient, createApiClient } from '../support/api-client';
import { sampleValue } from '../support/metrics-text';
import { pollUntil } from '../support/poll';
import { startDatabaseProxy, TcpProxy } from '../support/tcp-proxy';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Routing and fallback of the analytics reads with DATABASE_READ_URL, on real PostgreSQL. The
 * "replica" is the run's own database reached through a TCP proxy the test controls (the
 * primary itself, reached another way, is a replica with no lag: read-replicas.ts recognises
 * it by cluster, start and database), so the test can cut it off or stall it while the app
 * runs. A real streaming replica, its lag and its catching up are exercised by
 * `npm run test:scale` (test/scale/). PGlite serves one session, so no replica pool: skipped.
 */
const isEmbedded = process.env.ANALYTICS_POOL_SIZE === '0';
const DAY = '2026-03-10';

interface ReplicaCheck {
  replica: number;
  status: string;
  lagSeconds: number | null;
}

(isEmbedded ? describe.skip : describe)('Analytics reads on read replicas (e2e)', () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let api: ApiClient;
  let linkId: string;

  beforeAll(async () => {
    proxy = await startDatabaseProxy(process.env.DATABASE_URL ?? '');
    t = await startTestApp({
      CLICK_CONSUMER_ENABLED: 'false',
      DATABASE_READ_URL: proxy.url,
      // A stalled replica costs a read this + 1 s (the client-side timer) before the primary
      // answers it; its checks give up after HEALTH_TIMEOUT_MS.
      ANALYTICS_STATEMENT_TIMEOUT_MS: '500',
      HEALTH_TIMEOUT_MS: '500',
    });
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    api = createApiClient(t, creator);
    linkId = (await createLink(t.app, { creatorId: creator.creatorId })).id;
    await insertClicks(t.app, creator.creatorId, [
      { clickedAt: `${DAY}T10:00:00Z`, linkId },
      { clickedAt: `${DAY}T11:00:00Z`, linkId },
      { clickedAt: `${DAY}T12:00:00Z`, linkId, outcome: 'fallback' },
    ]);
  });
  afterAll(async () => {
    await t.close();
    await proxy.close();
  });

  const replicaChecks = async (): Promise<ReplicaCheck[]> =>
    ((await t.http.get('/v1/health').expect(200)).body.data.checks.readReplicas ??
      []) as ReplicaCheck[];
  const untilReplicaIs = (status: string): Promise<ReplicaCheck[]> =>
    pollUntil(replicaChecks, ([check]) => check?.status === status);
  const metric = async (series: string): Promise<number | undefined> =>
    sampleValue(await t.app.get(AppMetrics).render(), series);
  const answeredBy = async (): Promise<{ replica: number; primary: number }> => ({
    replica: (await metric('linkpilot_analytics_reads_total{database="replica"}')) ?? 0,
    primary: (await metric('linkpilot_analytics_reads_total{database="primary"}')) ?? 0,
  });

  /** Every analytics read of the issue, with the answers the clicks above make. */
  async function readAllAnalytics(): Promise<void> {
    const period = `periodStart=${DAY}&periodEnd=${DAY}`;
    const summary = await api.get(`/v1/analytics/summary?${period}`).expect(200);
    expect(summary.body.data.totalClicks).toBe(3);
    const series = await api
      .get(`/v1/analytics/timeseries?interval=day&from=${DAY}&to=${DAY}`)
      .expect(200);
    expect(series.body.data.series[0].buckets).toEqual([
      { start: `${DAY}T00:00:00.000Z`, clicks: 3 },
    ]);
    const clicks = await api.get(`/v1/analytics/clicks?from=${DAY}&to=${DAY}`).expect(200);
    expect(clicks.body.data.items).toHaveLength(3);
    expect(clicks.body.data.pagination.total).toBe(3);
    const link = await api.get(`/v1/analytics/links/${linkId}?${period}`).expect(200);
    expect(link.body.data.clicks).toBe(3);
  }

  it('should report the replica keeping up, in health and in /metrics', async () => {
    const [check] = await untilReplicaIs('ok');

    expect(check.replica).toBe(1);
    expect(check.lagSeconds).toBeGreaterThanOrEqual(0);
    expect(check.lagSeconds).toBeLessThan(30);
    expect(await metric('linkpilot_db_read_replica_in_use{replica="1"}')).toBe(1);
    expect(
      await metric('linkpilot_db_read_replica_lag_seconds{replica="1"}'),
    ).toBeGreaterThanOrEqual(0);
    // Health's status is PostgreSQL's and Redis's: a replica never degrades it.
    expect((await t.http.get('/v1/health')).body.data.status).toBe('ok');
  });

  it('should answer every analytics read from the replica while it keeps up', async () => {
    await untilReplicaIs('ok');
    const before = await answeredBy();

    await readAllAnalytics();

    // Summary and link report hold one slot for both their statements: one call each.
    expect(await answeredBy()).toEqual({ replica: before.replica + 4, primary: before.primary });
  });

  it("should keep the reads that must see the caller's own writes on the primary", async () => {
    await untilReplicaIs('ok');
    const before = await answeredBy();

    const created = await api
      .post('/v1/links', { originalUrl: 'https://www.amazon.com/dp/B0BDHWDR30' })
      .expect(201);
    await api.get(`/v1/links/${created.body.data.link.linkId}`).expect(200);
    await api.get('/v1/account').expect(200);

    expect(await answeredBy()).toEqual(before);
  });

  it('should answer from the primary, with the same answers, once the replica is cut off', async () => {
    await untilReplicaIs('ok');
    await proxy.cut();
    const before = await answeredBy();

    // Before any check has noticed: the first read fails on the replica and is answered again.
    await readAllAnalytics();

    expect(await answeredBy()).toEqual({ replica: before.replica, primary: before.primary + 4 });
    const [check] = await untilReplicaIs('unreachable');
    expect(check.lagSeconds).toBeNull();
    expect(await metric('linkpilot_db_read_replica_in_use{replica="1"}')).toBe(0);
    expect(await metric('linkpilot_db_read_replica_lag_seconds{replica="1"}')).toBeUndefined();
  });

  it('should read from the replica again once it answers and keeps up', async () => {
    await proxy.restore();
    await untilReplicaIs('ok');
    const before = await answeredBy();

    await readAllAnalytics();

    expect((await answeredBy()).replica).toBe(before.replica + 4);
  });

  it('should answer from the primary when the replica stalls, never with an error', async () => {
    await untilReplicaIs('ok');
    proxy.stall();
    const before = await answeredBy();

    await readAllAnalytics();

    const after = await answeredBy();
    expect(after.replica).toBe(before.replica);
    expect(after.primary).toBe(before.primary + 4);
    await untilReplicaIs('unreachable');
    await proxy.restore();
    await untilReplicaIs('ok');
  });
});

(isEmbedded ? describe.skip : describe)('Read replicas that cannot serve (e2e)', () => {
  let other: Client;
  const otherDatabase = `lp_not_a_replica_${process.pid}`;
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    // Another database of the same server: it answers, but is none of the primary's replicas.
    other = new Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    await other.query(`CREATE DATABASE ${otherDatabase}`);
    const otherUrl = new URL(process.env.DATABASE_URL ?? '');
    otherUrl.pathname = `/${otherDatabase}`;
    t = await startTestApp({
      CLICK_CONSUMER_ENABLED: 'false',
      // Nothing listens on port 9 (discard), and the other database is no replica.
      DATABASE_READ_URL: `postgresql://postgres@127.0.0.1:9/linkpilot,${otherUrl.toString()}`,
      HEALTH_TIMEOUT_MS: '500',
    });
    api = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'enterprise' }));
  });
  afterAll(async () => {
    await t.close();
    await other.query(`DROP DATABASE IF EXISTS ${otherDatabase} WITH (FORCE)`);
    await other.end();
  });

  it('should name each in health and leave every analytics read to the primary', async () => {
    const checks = await pollUntil(
      async () =>
        ((await t.http.get('/v1/health').expect(200)).body.data.checks.readReplicas ??
          []) as ReplicaCheck[],
      (found) => found.every((check) => check.status !== 'unknown'),
    );

    expect(checks).toEqual([
      { replica: 1, status: 'unreachable', lagSeconds: null },
      { replica: 2, status: 'not_a_replica', lagSeconds: null },
    ]);
    await api.get('/v1/analytics/summary').expect(200);
    await api.get('/v1/analytics/timeseries').expect(200);
    await api.get('/v1/analytics/clicks').expect(200);
    const metrics = await t.app.get(AppMetrics).render();
    expect(sampleValue(metrics, 'linkpilot_analytics_reads_total{database="replica"}')).toBe(0);
    expect(sampleValue(metrics, 'linkpilot_analytics_reads_total{database="primary"}')).toBe(3);
  });
});
