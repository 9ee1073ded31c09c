import { Logger } from '@nestjs/common';
import { Cluster } from 'ioredis';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { CreatorsService } from '../../src/account/creators.service';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { clickStreamKey, edgeShardOf } from '../../src/analytics/click-streams';
import { openKvStore } from '../../src/kv/kv.module';
import { buildAmazonUrl, createLinkViaApi } from '../factories/api-link.factory';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { createApiClient } from '../support/api-client';
import { DESKTOP_BROWSER_UA, edgeVisit } from '../support/edge-visit';
import { pollUntil } from '../support/poll';
import { hasRedisServer } from '../support/private-redis';
import { PrivateRedisCluster, startRedisCluster } from '../support/redis-cluster';
import { sparePorts } from '../support/spare-ports';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

/**
 * The service on a Redis Cluster (docs/operations.md "Redis Cluster"): three masters of the test's own on
 * spare ports (never the machine's shared Redis), two app nodes on it. Each script runs only
 * if all its keys share a hash slot (a call across slots fails with CROSSSLOT), a command
 * goes to the node of its keys, and pub/sub crosses nodes: the click admission and its
 * streams read by the consumer group into PostgreSQL, the edge windows, unique visitors, link
 * invalidation between the app nodes, the API rate limits (one window and two together), an
 * Idempotency-Key claim, scripts that a node no longer knows, and a master that stalls.
 * Needs redis-server and redis-cli (Redis 7): skipped without them, unless CI is set.
 */
const isSkipped = !hasRedisServer() && process.env.CI === undefined;

const AMAZON_URL = 'https://www.amazon.com/dp/B0BDHWDR12';

(isSkipped ? describe.skip : describe)('Redis Cluster (e2e; three masters of its own)', () => {
  const clock = new TestClock();
  let cluster: PrivateRedisCluster;
  let admin: Cluster;
  let dataDirs: string[];
  let t: TestApp;
  /** A second app node on the same cluster, for what crosses nodes. */
  let other: TestApp;
  const problems: string[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    admin = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
    dataDirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-cluster-')));
    const onCluster = (dataDir: string) => ({
      REDIS_URL: '',
      REDIS_CLUSTER_NODES: cluster.nodes,
      DATA_DIR: dataDir,
      // Driven by hand (drainOnce), so counts are exact when asserted.
      CLICK_CONSUMER_ENABLED: 'false',
    });
    t = await startTestApp(onCluster(dataDirs[0]), { clock });
    other = await startTestApp(onCluster(dataDirs[1]));
    // Past boot, a warning or an error is a store call that failed and a fallback taken (the
    // edge admits in-process and spools, the API limits count per node): none may happen.
    for (const level of ['warn', 'error'] as const) {
      jest.spyOn(Logger.prototype, level).mockImplementation((...parts: unknown[]) => {
        problems.push(`${level}: ${String(parts[0])}`);
      });
    }
  }, 60_000);
  afterEach(() => {
    clock.resume();
    const seen = problems.splice(0);
    if (seen.length > 0) throw new Error(`Store calls failed on the cluster:\n${seen.join('\n')}`);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await other?.close();
    await t?.close();
    await admin?.quit();
    await cluster?.remove();
    for (const dir of dataDirs ?? []) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The master serving a key ("127.0.0.1:port"), from the cluster's own slot map. */
  const nodeOf = async (key: string): Promise<string> => {
    const slot = await admin.cluster('KEYSLOT', key);
    return admin.slots[slot][0];
  };
  const createLink = async (creator: TestCreator): Promise<string> =>
    (await createLinkViaApi(createApiClient(t, creator), { originalUrl: buildAmazonUrl() })).linkId;
  const used = async (creator: TestCreator): Promise<number> =>
    (await t.http.get('/v1/account').set('Authorization', creator.authorization).expect(200)).body
      .data.clicksUsedThisPeriod as number;
  const storedClicks = async (linkId: string): Promise<number> => {
    const [{ count }] = await t.app
      .get(DataSource)
      .query<{ count: string }[]>('SELECT count(*) FROM clicks WHERE link_id = $1', [linkId]);
    return Number(count);
  };
  const drain = () => t.app.get(ClickStreamConsumer).drainOnce();
  const freezeAtNextMinute = () => clock.freezeAt(Math.ceil(Date.now() / 60_000) * 60_000);

  it('should refuse REDIS_URL pointing at a cluster node, naming REDIS_CLUSTER_NODES', async () => {
    const quiet = { log: () => undefined, error: () => undefined } as unknown as Logger;
    await expect(
      openKvStore(
        { url: `redis://127.0.0.1:${cluster.ports[0]}`, cluster: null, commandTimeoutMs: 500 },
        quiet,
      ),
    ).rejects.toThrow(/is a Redis Cluster node: set REDIS_CLUSTER_NODES/);
  });

  it('should boot without waiting on a cluster that does not answer, and say why it has no subscription', async () => {
    const [closedPort] = await sparePorts(1);
    const lines: string[] = [];
    const recorder = {
      log: (line: string) => lines.push(line),
      error: (line: string) => lines.push(line),
    };
    const startedAt = performance.now();
    const store = await openKvStore(
      {
        url: null,
        cluster: {
          nodes: [{ host: '127.0.0.1', port: closedPort }],
          username: null,
          password: null,
          tls: false,
        },
        commandTimeoutMs: 500,
      },
      recorder as unknown as Logger,
    );
    try {
      await expect(store.subscribe('nobody-listens', () => undefined)).rejects.toThrow(
        'Redis Cluster not reachable yet: subscribing once it is',
      );
      expect(performance.now() - startedAt).toBeLessThan(6_000);
      expect(store.isReachable()).toBe(false);
      expect(lines).toEqual([
        expect.stringMatching(
          new RegExp(`^Redis at Redis Cluster 127.0.0.1:${closedPort} unreachable`),
        ),
      ]);
    } finally {
      await store.close();
    }
  });

  it('should answer health ok on the cluster', async () => {
    const health = await t.http.get('/v1/health').expect(200);
    expect(health.body.data.checks.kv.status).toBe('ok');
  });

  it('should count each click and store it in PostgreSQL once, from creators on all three masters', async () => {
    // Creators until their shards' streams (and edge keys) sit on every master.
    const creators: TestCreator[] = [];
    const masters = new Set<string>();
    while (masters.size < 3 && creators.length < 40) {
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      creators.push(creator);
      masters.add(await nodeOf(clickStreamKey(edgeShardOf(creator.creatorId))));
    }
    expect(masters.size).toBe(3);
    const links = await Promise.all(creators.map(createLink));
    for (const linkId of links) {
      for (let i = 0; i < 3; i++) await edgeVisit(t, `/r/${linkId}`).expect(302);
    }
    expect(await used(creators[0])).toBe(3);

    await drain();

    for (const linkId of links) expect(await storedClicks(linkId)).toBe(3);
    // Acknowledged and trimmed on each stream's own node.
    for (const creator of creators) {
      expect(await admin.xlen(clickStreamKey(edgeShardOf(creator.creatorId)))).toBe(0);
    }
  });

  it('should refuse the 201st click from one address in a minute', async () => {
    freezeAtNextMinute();
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const linkId = await createLink(creator);
    const fromOneAddress = { 'X-Forwarded-For': '203.0.113.91' };
    for (let i = 0; i < 200; i++) await edgeVisit(t, `/r/${linkId}`, fromOneAddress).expect(302);
    await edgeVisit(t, `/r/${linkId}`, fromOneAddress).expect(429);
    await edgeVisit(t, `/r/${linkId}`).expect(302);
  });

  it('should refuse clicks over the creator’s per-minute edge limit (Creator plan: 200)', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'creator' });
    const creators = t.app.get(CreatorsService);
    // The Creator plan has no API: the link is made under Publisher.
    await creators.update(creator.creatorId, { planId: 'publisher' });
    const linkId = await createLink(creator);
    await creators.update(creator.creatorId, { planId: 'creator' });
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the edge re-reads plans every second
    freezeAtNextMinute();
    for (let i = 0; i < 200; i++) await edgeVisit(t, `/r/${linkId}`).expect(302);
    await edgeVisit(t, `/r/${linkId}`).expect(429);
  });

  it('should stop a capped link at maxClicks across both app nodes (its counter in the creator’s slot)', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const { linkId } = await createLinkViaApi(createApiClient(t, creator), {
      originalUrl: buildAmazonUrl(),
      maxClicks: 5,
    });
    const statuses = await Promise.all(
      Array.from(
        { length: 12 },
        async (_, i) => (await edgeVisit(i % 2 ? other : t, `/r/${linkId}`)).status,
      ),
    );
    expect(statuses.filter((status) => status === 302)).toHaveLength(5);
    expect(statuses.filter((status) => status === 410)).toHaveLength(7);
    await drain();
    expect(await storedClicks(linkId)).toBe(5);
  });

  it('should count unique visitors per link and for the creator', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const api = createApiClient(t, creator);
    const linkId = await createLink(creator);
    const visitors = 40;
    for (let i = 0; i < visitors; i++) {
      const visitor = { 'X-Forwarded-For': `10.77.${i}.9`, 'User-Agent': DESKTOP_BROWSER_UA };
      await edgeVisit(t, `/r/${linkId}`, visitor).expect(302);
      await edgeVisit(t, `/r/${linkId}`, visitor).expect(302);
    }

    const perLink = (await api.get(`/v1/analytics/links/${linkId}`).expect(200)).body.data;
    const summary = (await api.get('/v1/analytics/summary').expect(200)).body.data;

    // HyperLogLog: within 3 standard errors (0.81% each), at least 1.
    expect(Math.abs(perLink.uniqueVisitors - visitors)).toBeLessThanOrEqual(1);
    expect(Math.abs(summary.uniqueVisitors - visitors)).toBeLessThanOrEqual(1);
  });

  it('should evict a link from the other app node through pub/sub when it is deleted', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const linkId = await createLink(creator);
    // The other node now holds the record in process.
    await edgeVisit(other, `/r/${linkId}`).expect(302);

    await createApiClient(t, creator).delete(`/v1/links/${linkId}`).expect(200);

    await pollUntil(
      async () => (await edgeVisit(other, `/r/${linkId}`)).status,
      (status) => status === 404,
      { timeoutMs: 5_000 },
    );
  });

  it('should refuse the 61st Publisher API request in a minute', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const account = () => t.http.get('/v1/account').set('Authorization', creator.authorization);
    for (let i = 1; i <= 60; i++) await account().expect(200);
    const refused = await account().expect(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('should hit the general and bulk windows together (one script, two keys) on a bulk create', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const response = await createApiClient(t, creator)
      .post('/v1/links/bulk', { links: [{ originalUrl: buildAmazonUrl() }] })
      .expect(207);
    expect(response.headers['x-ratelimit-remaining']).toBeDefined();
  });

  it('should replay an Idempotency-Key create with the first answer', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const key = `cluster-${creator.keyId}`;
    const create = () =>
      t.http
        .post('/v1/links')
        .set({ Authorization: creator.authorization, 'Idempotency-Key': key })
        .send({ originalUrl: AMAZON_URL, visitorCountry: 'US' })
        .expect(201);
    const first = await create();
    const again = await create();
    expect(again.body.data.link.linkId).toBe(first.body.data.link.linkId);
  });

  it('should run its scripts again on nodes that forgot them (NOSCRIPT, then EVAL on that node)', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const linkId = await createLink(creator);
    await Promise.all(admin.nodes('master').map((node) => node.script('FLUSH')));

    await edgeVisit(t, `/r/${linkId}`).expect(302);
    await edgeVisit(t, `/r/${linkId}`).expect(302);
    expect(await used(creator)).toBe(2);
    await drain();
    expect(await storedClicks(linkId)).toBe(2);
  });

  it('should serve promptly while a master is stalled, and store its clicks once after', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const linkId = await createLink(creator);
    await edgeVisit(t, `/r/${linkId}`).expect(302);
    // The master of the creator's shard: its admission keys and its stream.
    const port = Number(
      (await nodeOf(clickStreamKey(edgeShardOf(creator.creatorId)))).split(':')[1],
    );
    const slowestMs = { click: 0, health: 0 };
    const timed = async <T>(what: keyof typeof slowestMs, call: () => Promise<T>): Promise<T> => {
      const startedAt = performance.now();
      const result = await call();
      slowestMs[what] = Math.max(slowestMs[what], performance.now() - startedAt);
      return result;
    };

    cluster.stall(port);
    try {
      for (let i = 0; i < 10; i++) {
        await timed('click', () => edgeVisit(t, `/r/${linkId}`).expect(302));
      }
      const during = await timed('health', () => t.http.get('/v1/health').expect(200));
      expect(during.body.data.checks.kv.status).toBe('unreachable');
      // Far below the stall: the 500 ms command timeout once, then no wait at all.
      expect(slowestMs.click).toBeLessThan(2_000);
      expect(slowestMs.health).toBeLessThan(2_000);
      await delay(1_000);
    } finally {
      cluster.resume(port);
    }
    await pollUntil(
      async () => (await t.http.get('/v1/health').expect(200)).body.data.checks.kv.status,
      (status) => status === 'ok',
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    await pollUntil(
      async () => {
        await drain();
        return storedClicks(linkId);
      },
      (stored) => stored >= 11,
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    await delay(500);
    await drain();
    expect(await storedClicks(linkId)).toBe(11);
    // The stall is logged, once, as an outage; nothing else went wrong.
    expect(problems.splice(0)).toEqual([
      expect.stringMatching(
        /^error: Redis at Redis Cluster .* unreachable \(no reply within 500 ms\)/,
      ),
    ]);
  });
});
