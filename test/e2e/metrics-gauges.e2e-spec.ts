import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import request from 'supertest';
import {
  CLICK_CONSUMER_GROUP,
  ClickStreamConsumer,
} from '../../src/analytics/click-stream.consumer';
import { CLICK_STREAMS, clickStreamKey, edgeShardOf } from '../../src/analytics/click-streams';
import { configToken } from '../../src/config/config.module';
import { DatabaseConfig } from '../../src/config/env';
import { KvStore } from '../../src/kv/kv-store';
import { STREAM_READ_TIMEOUT_MS } from '../../src/metrics/background-gauges';
import { MetricsServer } from '../../src/metrics/metrics-server';
import { createLinkViaApi } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { edgeVisit } from '../support/edge-visit';
import { createApiClient } from '../support/api-client';
import { sampleValue } from '../support/metrics-text';
import { pollUntil } from '../support/poll';
import { hasRedisServer, PrivateRedis, startPrivateRedis } from '../support/private-redis';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The gauges computed when /metrics is scraped (src/metrics/background-gauges.ts), read from a
 * real app: the click streams' length, lag and pending entries through a click's life, the
 * PostgreSQL pool, and the Redis clients. With REDIS_URL set the app gets a redis-server of
 * the test's own (the run's Redis is shared by suites whose consumers drain the same streams,
 * so counts there would not be exact), which the last test stops; on a Redis Cluster
 * (REDIS_CLUSTER_NODES) the run's, which must be the suite's alone (`npx jest --config
 * jest.cluster.config.js --testMatch '<rootDir>/test/e2e/metrics-gauges.e2e-spec.ts'`);
 * without either, the in-process store.
 */
const usesRedisUrl = (process.env.REDIS_URL ?? '') !== '';
const usesCluster = (process.env.REDIS_CLUSTER_NODES ?? '') !== '';
const usesRedis = usesRedisUrl || usesCluster;
const usesPrivateRedis = usesRedisUrl && !usesCluster;
const isSkipped = usesPrivateRedis && !hasRedisServer() && process.env.CI === undefined;
const describeWithPrivateRedis = usesPrivateRedis ? describe : describe.skip;

const CLAIM_IDLE_MS = 100;

const linesOf = (text: string, prefix: string): string[] =>
  text.split('\n').filter((line) => line.startsWith(prefix));

(isSkipped ? describe.skip : describe)('Gauges read at scrape time (e2e)', () => {
  let redis: PrivateRedis | null = null;
  let dataDir: string;
  let t: TestApp;
  let metricsUrl: string;

  beforeAll(async () => {
    if (usesPrivateRedis) redis = await startPrivateRedis();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-gauges-'));
    t = await startTestApp({
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      // The test drives the consumer (drainOnce), so the streams hold what it expects.
      CLICK_CONSUMER_ENABLED: 'false',
      CLICK_CLAIM_IDLE_MS: String(CLAIM_IDLE_MS),
      DATA_DIR: dataDir,
      ...(redis === null ? {} : { REDIS_URL: redis.url }),
    });
    metricsUrl = `http://127.0.0.1:${t.app.get(MetricsServer).port()}`;
  });
  afterAll(async () => {
    await t.close();
    await redis?.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const scrape = async (): Promise<string> =>
    (await request(metricsUrl).get('/metrics').expect(200)).text;
  const streamSample = (text: string, name: string, stream: string): number | undefined =>
    sampleValue(text, `linkpilot_click_stream_${name}{stream="${stream}"}`);

  it("should show the PostgreSQL pool's connections within its bound", async () => {
    await t.http.get('/v1/health').expect(200);
    const text = await scrape();
    const max = t.app.get<DatabaseConfig>(configToken('database')).poolSize;
    expect(sampleValue(text, 'linkpilot_db_pool_max_connections')).toBe(max);
    const inUse = sampleValue(text, 'linkpilot_db_pool_connections{state="in_use"}') ?? -1;
    const idle = sampleValue(text, 'linkpilot_db_pool_connections{state="idle"}') ?? -1;
    expect(inUse).toBeGreaterThanOrEqual(0);
    expect(idle).toBeGreaterThanOrEqual(0);
    expect(inUse + idle).toBeGreaterThanOrEqual(1);
    expect(inUse + idle).toBeLessThanOrEqual(max);
    expect(sampleValue(text, 'linkpilot_db_pool_waiting_requests')).toBe(0);
  });

  it('should show each Redis client, or none on the in-process store', async () => {
    const text = await scrape();
    // The command client, and the subscriber of the link invalidations made at boot.
    const clients = usesRedis ? ['command', 'subscriber'] : [];
    expect(linesOf(text, 'linkpilot_redis_connection_up{')).toEqual(
      clients.map((client) => `linkpilot_redis_connection_up{client="${client}"} 1`),
    );
    const queued = linesOf(text, 'linkpilot_redis_commands_queued{');
    expect(queued.map((line) => line.slice(0, line.lastIndexOf(' ')))).toEqual(
      clients.flatMap((client) =>
        ['in_flight', 'offline'].map(
          (queue) => `linkpilot_redis_commands_queued{client="${client}",queue="${queue}"}`,
        ),
      ),
    );
    for (const line of queued) expect(Number(line.split(' ')[1])).toBeGreaterThanOrEqual(0);
  });

  it("should follow a click stream's length, lag and pending entries through the consumer", async () => {
    // No consumer has made the group yet: each stream's length alone, all empty.
    const before = await scrape();
    for (const stream of CLICK_STREAMS) expect(streamSample(before, 'length', stream)).toBe(0);
    expect(linesOf(before, 'linkpilot_click_stream_consumer_lag{')).toEqual([]);
    expect(linesOf(before, 'linkpilot_click_stream_pending{')).toEqual([]);

    const consumer = t.app.get(ClickStreamConsumer);
    await consumer.ensureGroups();

    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const { linkId } = await createLinkViaApi(createApiClient(t, creator));
    for (let click = 0; click < 3; click++) await edgeVisit(t, `/r/${linkId}`).expect(302);
    const stream = clickStreamKey(edgeShardOf(creator.creatorId));

    // Three clicks, none delivered to the group yet.
    const queued = await pollUntil(scrape, (text) => streamSample(text, 'length', stream) === 3);
    expect(streamSample(queued, 'consumer_lag', stream)).toBe(3);
    expect(streamSample(queued, 'pending', stream)).toBe(0);
    for (const other of CLICK_STREAMS.filter((candidate) => candidate !== stream)) {
      expect(streamSample(queued, 'length', other)).toBe(0);
      expect(streamSample(queued, 'consumer_lag', other)).toBe(0);
      expect(streamSample(queued, 'pending', other)).toBe(0);
    }

    // A worker takes two and dies before acknowledging them: two pending, one still to deliver.
    const taken = await t.app
      .get(KvStore)
      .readStreamGroup(stream, CLICK_CONSUMER_GROUP, 'doomed-worker', 2);
    expect(taken).toHaveLength(2);
    const held = await scrape();
    expect(streamSample(held, 'length', stream)).toBe(3);
    expect(streamSample(held, 'consumer_lag', stream)).toBe(1);
    expect(streamSample(held, 'pending', stream)).toBe(2);

    // Once they are idle long enough, the consumer claims them, reads the third, writes all
    // three and acknowledges them: the stream is trimmed empty.
    await delay(CLAIM_IDLE_MS * 2);
    expect(await consumer.drainOnce()).toBe(3);
    const drained = await scrape();
    expect(streamSample(drained, 'length', stream)).toBe(0);
    expect(streamSample(drained, 'consumer_lag', stream)).toBe(0);
    expect(streamSample(drained, 'pending', stream)).toBe(0);
  });

  describeWithPrivateRedis('while Redis is down', () => {
    it('should answer a scrape at once without the stream series, and show them again once Redis is back', async () => {
      await redis!.stop();
      const lost = await pollUntil(
        scrape,
        (text) => sampleValue(text, 'linkpilot_redis_connection_up{client="command"}') === 0,
      );
      expect(linesOf(lost, 'linkpilot_click_stream_')).toEqual([]);
      // Known lost, the store is asked nothing: no wait for its timeout.
      const startedAt = performance.now();
      const down = await scrape();
      expect(performance.now() - startedAt).toBeLessThan(STREAM_READ_TIMEOUT_MS);
      expect(linesOf(down, 'linkpilot_click_stream_')).toEqual([]);
      expect(sampleValue(down, 'linkpilot_db_pool_max_connections')).toBeGreaterThanOrEqual(1);

      await redis!.start();
      // Back, and empty: a killed Redis without persistence lost its streams and their group.
      const back = await pollUntil(
        scrape,
        (text) => streamSample(text, 'length', CLICK_STREAMS[0]) !== undefined,
        { timeoutMs: 15_000, intervalMs: 100 },
      );
      expect(sampleValue(back, 'linkpilot_redis_connection_up{client="command"}')).toBe(1);
      for (const stream of CLICK_STREAMS) expect(streamSample(back, 'length', stream)).toBe(0);
    });
  });
});
