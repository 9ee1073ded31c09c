import { getRepositoryToken } from '@nestjs/typeorm';
import Redis from 'ioredis';
import { DataSource, Repository } from 'typeorm';
import { billingPeriodOf } from '../../src/account/billing-period';
import { ClickEntity } from '../../src/analytics/click.entity';
import {
  CLICK_CONSUMER_GROUP,
  ClickStreamConsumer,
} from '../../src/analytics/click-stream.consumer';
import { ClickWritesRepository } from '../../src/analytics/click-writes.repository';
import { runCli } from '../../src/cli/run-cli';
import { ClicksConfig } from '../../src/config/env';
import {
  CLICK_ADMISSION_SCRIPT,
  clickAdmissionArgs,
  clickAdmissionKeys,
} from '../../src/clicks/click-admission.script';
import { edgeKeysOf } from '../../src/clicks/edge-keys';
import { CLICK_STREAMS, clickStreamKey, edgeShardOf } from '../../src/analytics/click-streams';
import { KvStore, StreamEntry } from '../../src/kv/kv-store';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { ENTITIES } from '../../src/entities';
import { createCreatorWithKey } from '../factories/creator.factory';
import { startDatabaseProxy } from '../support/tcp-proxy';
import { pollUntil } from '../support/poll';
import { startTestApp, TestApp } from '../support/test-app';

const CLAIM_IDLE_MS = 100;

describe('Click stream consumer (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      CLICK_CONSUMER_ENABLED: 'false',
      CLICK_CLAIM_IDLE_MS: String(CLAIM_IDLE_MS),
    });
  });
  afterAll(() => t.close());

  /** A worker process as the app builds one; `name` tells workers apart like hosts and pids do. */
  const worker = (config: Partial<ClicksConfig> = {}) =>
    new ClickStreamConsumer(
      {
        consumerEnabled: false,
        pollIntervalMs: 250,
        claimIdleMs: CLAIM_IDLE_MS,
        rollupCompactIntervalMs: 10_000,
        ...config,
      } satisfies ClicksConfig,
      t.app.get(KvStore),
      new ClickWritesRepository(
        t.app.get<Repository<ClickEntity>>(getRepositoryToken(ClickEntity)),
      ),
    );

  async function clickTimes(count: number): Promise<string> {
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const created = await t.http
      .post('/v1/links')
      .set('Authorization', creator.authorization)
      .send({ originalUrl: 'https://www.amazon.com/dp/B0BDHWDR12', visitorCountry: 'US' })
      .expect(201);
    const linkId = created.body.data.link.linkId as string;
    for (let i = 0; i < count; i++) {
      await t.http
        .get(`/r/${linkId}`)
        .set('X-Forwarded-For', `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`)
        .set('CF-IPCountry', 'US')
        .redirects(0)
        .expect(302);
    }
    return linkId;
  }

  /** What a worker holds when it dies: entries read from every stream, pending, unacknowledged. */
  async function readAsDoomedWorker(
    doomed: ClickStreamConsumer,
  ): Promise<Map<string, StreamEntry[]>> {
    await doomed.ensureGroups();
    const held = new Map<string, StreamEntry[]>();
    for (const stream of CLICK_STREAMS) {
      held.set(
        stream,
        await t.app
          .get(KvStore)
          .readStreamGroup(stream, CLICK_CONSUMER_GROUP, doomed.consumerName, 500),
      );
    }
    return held;
  }

  const rowsFor = (linkId: string) =>
    t.app
      .get(DataSource)
      .query<{ record_id: string }[]>(`SELECT record_id FROM clicks WHERE link_id = $1`, [linkId]);

  /** The link's rows once there are `count` of them, or what there is after about 10 s. */
  async function waitForRows(linkId: string, count: number): Promise<{ record_id: string }[]> {
    let rows: { record_id: string }[] = [];
    for (let attempt = 0; attempt < 200 && rows.length < count; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = await rowsFor(linkId);
    }
    return rows;
  }

  /** Runs `check` while a worker's background loop runs, then stops the loop. */
  async function withBackgroundWorker(
    check: (background: ClickStreamConsumer) => Promise<void>,
  ): Promise<void> {
    const background = worker({ consumerEnabled: true, pollIntervalMs: 20 });
    await background.onApplicationBootstrap();
    try {
      await check(background);
    } finally {
      await background.beforeApplicationShutdown();
    }
  }

  it('should write what a pass read before PostgreSQL failed as soon as it is back, without waiting to claim it', async () => {
    const proxy = await startDatabaseProxy(process.env.DATABASE_URL ?? '');
    const cutOffDatabase = new DataSource(buildDataSourceOptions(proxy.url, 1, ENTITIES));
    await cutOffDatabase.initialize();
    try {
      const linkId = await clickTimes(6);
      // Claiming would take a minute: only reading its own pending entries back can be quick.
      const cutOff = new ClickStreamConsumer(
        {
          consumerEnabled: false,
          pollIntervalMs: 250,
          claimIdleMs: 60_000,
          rollupCompactIntervalMs: 10_000,
        },
        t.app.get(KvStore),
        new ClickWritesRepository(cutOffDatabase.getRepository(ClickEntity)),
      );
      await proxy.cut();
      await expect(cutOff.drainOnce()).rejects.toThrow();
      await proxy.restore();

      await pollUntil(
        async () => {
          await cutOff.drainOnce().catch(() => 0);
          return (await rowsFor(linkId)).length;
        },
        (count) => count >= 6,
        { timeoutMs: 10_000, intervalMs: 100 },
      );

      expect(await rowsFor(linkId)).toHaveLength(6);
    } finally {
      await cutOffDatabase.destroy();
      await proxy.close();
    }
  });

  it('should write every click left pending by a crashed worker exactly once after a restart', async () => {
    const linkId = await clickTimes(7);
    const held = await readAsDoomedWorker(worker());
    expect([...held.values()].flat().length).toBeGreaterThanOrEqual(7);
    // The worker dies here. A new one starts and, once the entries are idle long enough, claims them.
    const restarted = worker();
    await new Promise((resolve) => setTimeout(resolve, CLAIM_IDLE_MS + 50));
    await restarted.drainOnce();
    const rows = await rowsFor(linkId);
    expect(rows).toHaveLength(7);
    expect(new Set(rows.map((row) => row.record_id)).size).toBe(7);
    // Nothing left to claim or read: a further pass writes nothing for this link.
    await new Promise((resolve) => setTimeout(resolve, CLAIM_IDLE_MS + 50));
    await restarted.drainOnce();
    expect(await rowsFor(linkId)).toHaveLength(7);
  });

  it('should claim a crashed worker’s clicks in the background too', async () => {
    const linkId = await clickTimes(4);
    await readAsDoomedWorker(worker()); // read, never written: pending under a dead consumer
    await withBackgroundWorker(async () => {
      expect(await waitForRows(linkId, 4)).toHaveLength(4);
    });
  });

  it('should not duplicate clicks a worker wrote but died before acknowledging', async () => {
    const linkId = await clickTimes(5);
    const doomed = worker();
    const held = await readAsDoomedWorker(doomed);
    for (const entries of held.values()) await doomed.insert(entries); // written, never acknowledged
    expect(await rowsFor(linkId)).toHaveLength(5);
    const restarted = worker();
    await new Promise((resolve) => setTimeout(resolve, CLAIM_IDLE_MS + 50));
    await restarted.drainOnce();
    const rows = await rowsFor(linkId);
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((row) => row.record_id)).size).toBe(5);
  });

  /** `linkpilot clicks consume --once --json`, in-process, against the run's stores. */
  async function consumeOnce(): Promise<{ code: number; json: Record<string, any> }> {
    let stdout = '';
    const code = await runCli(
      ['clicks', 'consume', '--once', '--json'],
      { ...process.env, LOG_LEVEL: 'fatal' },
      { out: (text) => (stdout += text), err: () => undefined },
    );
    return { code, json: JSON.parse(stdout.trim()) as Record<string, any> };
  }

  // A separate worker reaches the streams only in Redis; the in-process store lives in the server.
  const withRedis = process.env.REDIS_URL === undefined ? describe.skip : describe;
  const withoutRedis = process.env.REDIS_URL === undefined ? describe : describe.skip;

  withRedis('click worker on Redis', () => {
    it('should move clicks with the click worker command, each exactly once', async () => {
      const linkId = await clickTimes(4);
      const first = await consumeOnce();
      expect(first.code).toBe(0);
      expect(first.json.written).toBeGreaterThanOrEqual(4);
      const rows = await rowsFor(linkId);
      expect(new Set(rows.map((row) => row.record_id)).size).toBe(4);
      expect(rows).toHaveLength(4);
      // The streams are empty now: a second run writes nothing.
      expect(await consumeOnce()).toEqual({ code: 0, json: { written: 0 } });
      expect(await rowsFor(linkId)).toHaveLength(4);
    });

    it('should trim acknowledged entries from a stream, never one still pending', async () => {
      const redis = new Redis(process.env.REDIS_URL as string);
      try {
        const held = await clickTimes(3);
        const [{ creator_id: creatorId }] = await t.app
          .get(DataSource)
          .query<{ creator_id: string }[]>(`SELECT creator_id FROM links WHERE id = $1`, [held]);
        const stream = clickStreamKey(edgeShardOf(creatorId));
        await readAsDoomedWorker(worker()); // these three stay pending under a dead consumer
        for (const ip of ['198.19.0.1', '198.19.0.2']) {
          await t.http
            .get(`/r/${held}`)
            .set('X-Forwarded-For', ip)
            .set('CF-IPCountry', 'US')
            .redirects(0)
            .expect(302);
        }
        await worker({ claimIdleMs: 60_000, rollupCompactIntervalMs: 10_000 }).drainOnce();
        expect(await rowsFor(held)).toHaveLength(2);
        // The two written are acknowledged; the three pending ones must survive the trim.
        expect(await redis.xlen(stream)).toBeGreaterThanOrEqual(3);
        await new Promise((resolve) => setTimeout(resolve, CLAIM_IDLE_MS + 50));
        await worker().drainOnce();
        expect(await rowsFor(held)).toHaveLength(5);
        expect(await redis.xlen(stream)).toBe(0);
      } finally {
        await redis.quit();
      }
    });
  });

  withoutRedis('click worker on the embedded store', () => {
    it('should refuse to run', async () => {
      expect(await consumeOnce()).toEqual({
        code: 1,
        json: { error: expect.objectContaining({ code: 'KV_ERROR' }) },
      });
    });
  });

  it('should drop entries that are not click records and write the rest of their batch', async () => {
    const linkId = await clickTimes(3);
    const [{ creator_id: creatorId }] = await t.app
      .get(DataSource)
      .query<{ creator_id: string }[]>(`SELECT creator_id FROM links WHERE id = $1`, [linkId]);
    // Appended to the same creator's stream as the three clicks, so they share a batch.
    // The last one decodes but holds a time PostgreSQL refuses.
    const badTime = JSON.stringify([
      '01J0000000000000000000000Z',
      'not a time',
      linkId,
      creatorId,
      null,
      null,
      null,
      'default',
      'routed',
      0,
      0,
      false,
      false,
      null,
      'desktop',
    ]);
    for (const record of ['not json', '{"recordId":"x"}', '["only an id"]', badTime]) {
      const nowMs = Date.now();
      const admission = {
        keys: edgeKeysOf(creatorId, 'live', '192.0.2.250', billingPeriodOf(nowMs).id),
        nowMs,
        windowMs: 60_000,
        ipLimit: 1_000,
        creatorLimit: 1_000,
        includedClicks: 1_000,
        isHardCap: false,
        quotaSeed: 3,
        quotaTtlSeconds: 60,
        record,
        uniqueVisitor: {
          hash: null,
          linkKey: `uv:test:${creatorId}:l`,
          creatorKey: `uv:test:${creatorId}:c`,
          ttlSeconds: 60,
        },
      };
      const [verdict] = await t.app
        .get(KvStore)
        .runScript(
          CLICK_ADMISSION_SCRIPT,
          clickAdmissionKeys(admission),
          clickAdmissionArgs(admission),
        );
      expect(verdict).toBe('counted');
    }
    const consumer = worker();
    let written = 0;
    for (let pass = 0; pass < 5; pass++) written += await consumer.drainOnce();
    expect(written).toBeGreaterThanOrEqual(3);
    expect(await rowsFor(linkId)).toHaveLength(3);
    // Acknowledged, not retried forever: nothing is left to read.
    expect(await consumer.drainOnce()).toBe(0);
  });

  it('should drain a backlog of several batches per stream in the background, each click once', async () => {
    // One creator's clicks share one stream: 1,100 of them are three batches of up to 500.
    const linkId = await clickTimes(1_100);
    await withBackgroundWorker(async (background) => {
      const rows = await waitForRows(linkId, 1_100);
      expect(rows).toHaveLength(1_100);
      expect(new Set(rows.map((row) => row.record_id)).size).toBe(1_100);
      // The rows are visible once inserted; the worker counts them after acknowledging.
      const written = await pollUntil(
        () => Promise.resolve(background.writtenInBackground),
        (count) => count >= 1_100,
      );
      expect(written).toBeGreaterThanOrEqual(1_100);
    });
  });

  it('should drain new clicks in the background when enabled', async () => {
    const background = await startTestApp({ CLICK_POLL_INTERVAL_MS: '50' });
    try {
      const creator = await createCreatorWithKey(background.app, { plan: 'publisher' });
      const created = await background.http
        .post('/v1/links')
        .set('Authorization', creator.authorization)
        .send({ originalUrl: 'https://www.asos.com/nike/nike-air-max-90/prd/204812345' })
        .expect(201);
      const linkId = created.body.data.link.linkId as string;
      await background.http
        .get(`/r/${linkId}`)
        .set('X-Forwarded-For', '192.0.2.200')
        .redirects(0)
        .expect(302);
      expect(await waitForRows(linkId, 1)).toHaveLength(1);
    } finally {
      await background.close();
    }
  });
});
