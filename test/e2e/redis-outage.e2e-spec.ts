import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { parseSegment } from '../../src/clicks/click-spool-format';
import { KvStore } from '../../src/kv/kv-store';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { edgeVisit } from '../support/edge-visit';
import { pollUntil } from '../support/poll';
import { PrivateRedis, startPrivateRedis } from '../support/private-redis';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The service through a Redis outage, on a redis-server of the test's own (a spare port, no
 * persistence; never the machine's shared Redis) that it stops and starts again. The API
 * answers from PostgreSQL with its rate limits in-process, the edge spools the clicks it
 * counts, and once Redis is back every one of them is in PostgreSQL exactly once.
 * The embedded default has no Redis to lose: there the suite is skipped.
 */
const usesRedis = (process.env.REDIS_URL ?? '') !== '';
const describeWithRedis = usesRedis ? describe : describe.skip;

const OUTAGE_TEST_MS = 60_000;

interface HealthData {
  status: string;
  checks: {
    kv: { status: string; spool?: { clicks: number; bytes: number; droppedClicks: number } };
  };
}

describeWithRedis('Redis outage (e2e; skipped on the embedded store, which has no Redis)', () => {
  let redis: PrivateRedis;
  let dataDir: string;
  let t: TestApp;
  let recordedLines: { level: 'log' | 'warn' | 'error'; message: string }[];
  const consoleErrors: string[] = [];

  /** An app on the private Redis, with a spool directory of its own. */
  const startApp = (env: Record<string, string> = {}): Promise<TestApp> =>
    startTestApp({ REDIS_URL: redis.url, DATA_DIR: dataDir, HEALTH_TIMEOUT_MS: '500', ...env });

  beforeAll(async () => {
    recordedLines = [];
    for (const level of ['log', 'warn', 'error'] as const) {
      jest.spyOn(Logger.prototype, level).mockImplementation((...parts: unknown[]) => {
        recordedLines.push({ level, message: String(parts[0]) });
      });
    }
    jest.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
      consoleErrors.push(parts.map(String).join(' '));
    });
    redis = await startPrivateRedis();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-outage-'));
  });
  afterAll(async () => {
    await redis.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  const health = async (app: TestApp): Promise<HealthData> =>
    (await app.http.get('/v1/health').expect(200)).body.data as HealthData;
  const untilRedisIsBack = (app: TestApp) =>
    pollUntil(
      () => health(app),
      (data) => data.checks.kv.status === 'ok',
      { timeoutMs: 15_000, intervalMs: 100 },
    );
  const createLink = async (app: TestApp, creator: TestCreator): Promise<string> => {
    const response = await app.http
      .post('/v1/links')
      .set('Authorization', creator.authorization)
      .send({ originalUrl: 'https://www.amazon.com/dp/B0BDHWDR12', visitorCountry: 'US' })
      .expect(201);
    return response.body.data.link.linkId as string;
  };
  const clickTimes = async (app: TestApp, linkId: string, times: number): Promise<void> => {
    for (let i = 0; i < times; i++) {
      const response = await edgeVisit(app, `/r/${linkId}`, { 'CF-IPCountry': 'US' });
      expect(response.status).toBe(302);
    }
  };
  const storedRecordIds = async (app: TestApp, linkId: string): Promise<string[]> => {
    const rows: { record_id: string }[] = await app.app
      .get(DataSource)
      .query('SELECT record_id FROM clicks WHERE link_id = $1', [linkId]);
    return rows.map((row) => row.record_id);
  };
  const untilStored = (app: TestApp, linkId: string, count: number) =>
    pollUntil(
      () => storedRecordIds(app, linkId),
      (ids) => ids.length >= count,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  const spoolDir = () => path.join(dataDir, 'click-spool');
  /** The ids of the clicks on disk in the spool now. */
  const spooledRecordIds = (): string[] =>
    (fs.existsSync(spoolDir()) ? fs.readdirSync(spoolDir()) : []).flatMap((name) =>
      parseSegment(fs.readFileSync(path.join(spoolDir(), name), 'utf8')).clicks.map(
        (click) => JSON.parse(click.record)[0] as string,
      ),
    );
  const untilSpoolIsEmpty = () =>
    pollUntil(
      () => Promise.resolve(fs.readdirSync(spoolDir())),
      (names) => names.length === 0,
    );
  const usedThisPeriod = async (app: TestApp, creator: TestCreator): Promise<number> =>
    (await app.http.get('/v1/account').set('Authorization', creator.authorization).expect(200)).body
      .data.clicksUsedThisPeriod;

  describe('with the default spool', () => {
    beforeAll(async () => {
      t = await startApp();
    });
    afterAll(async () => {
      await t.close();
      // A test that failed mid-outage leaves Redis stopped: the next suite needs it.
      await redis.start();
    });

    it(
      'should keep answering the API from PostgreSQL, with the rate limit applied in-process',
      async () => {
        const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
        const linkId = await createLink(t, creator);
        await redis.stop();

        const calls = [
          () => t.http.get('/v1/links'),
          () => t.http.get(`/v1/links/${linkId}`),
          () => t.http.get('/v1/account'),
          () => t.http.get('/v1/merchants'),
        ];
        for (const call of calls) {
          const response = await call().set('Authorization', creator.authorization);
          expect(response.status).toBe(200);
          expect(response.headers['x-ratelimit-limit']).toBe('60');
        }
        const created = await t.http
          .post('/v1/links')
          .set('Authorization', creator.authorization)
          .send({ originalUrl: 'https://www.amazon.com/dp/B0CHX1W1XY' });
        expect(created.status).toBe(201);
        // Publisher: 60 a minute. Five used above; the 61st in the minute is refused.
        for (let i = 5; i < 60; i++) {
          await t.http.get('/v1/links').set('Authorization', creator.authorization).expect(200);
        }
        const refused = await t.http.get('/v1/links').set('Authorization', creator.authorization);
        expect(refused.status).toBe(429);
        expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

        await redis.start();
        await untilRedisIsBack(t);
      },
      OUTAGE_TEST_MS,
    );

    it(
      'should report health degraded with checks.kv unreachable during the outage, ok after',
      async () => {
        await redis.stop();

        const during = await health(t);
        expect(during).toMatchObject({
          status: 'degraded',
          kvLatencyMs: expect.any(Number),
          checks: {
            database: { status: 'ok' },
            kv: {
              status: 'unreachable',
              spool: { clicks: 0, bytes: expect.any(Number), droppedClicks: 0 },
            },
          },
        });
        // Not taken out of rotation: the node still serves without Redis.
        await t.http.get('/readyz').expect(200);

        await redis.start();
        const after = await untilRedisIsBack(t);
        expect(after).toMatchObject({ status: 'ok', checks: { kv: { status: 'ok' } } });
        expect(after.checks.kv.spool).toBeUndefined();
      },
      OUTAGE_TEST_MS,
    );

    it.each([
      ['Redis comes back empty (its data lost)', { keepData: false }],
      ['Redis comes back with its data', { keepData: true }],
    ])(
      'should put every click counted during the outage in PostgreSQL once, when %s',
      async (_name, { keepData }) => {
        const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
        const linkId = await createLink(t, creator);
        await clickTimes(t, linkId, 3);
        const before = await untilStored(t, linkId, 3);
        expect(await usedThisPeriod(t, creator)).toBe(3);

        await redis.stop({ keepData });
        await clickTimes(t, linkId, 25);
        const spooled = spooledRecordIds();
        expect(new Set(spooled).size).toBe(25);

        await redis.start();
        await untilStored(t, linkId, 28);
        await untilSpoolIsEmpty();
        // Time for anything replayed twice, or late, to reach PostgreSQL too.
        await delay(1_000);
        const stored = await storedRecordIds(t, linkId);
        expect(stored).toHaveLength(28);
        expect(new Set(stored)).toEqual(new Set([...before, ...spooled]));
        // A kept counter raised by the outage's clicks, a lost one made from PostgreSQL's count.
        expect(await usedThisPeriod(t, creator)).toBe(28);
        // And counting goes on from there.
        await clickTimes(t, linkId, 1);
        expect(await usedThisPeriod(t, creator)).toBe(29);
      },
      OUTAGE_TEST_MS,
    );

    it(
      'should evict a link edited during the outage from Redis once it is back with its data',
      async () => {
        const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
        const linkId = await createLink(t, creator);
        // Cached in Redis (and in process) by a click.
        const routed = (await edgeVisit(t, `/r/${linkId}`).expect(302)).headers.location;
        await redis.stop({ keepData: true });

        const patched = await t.http
          .patch(`/v1/links/${linkId}`)
          .set('Authorization', creator.authorization)
          .send({ passthrough: true, passthroughReason: 'Paused during the outage' });
        expect(patched.status).toBe(200);
        const originalUrl = patched.body.data.link.originalUrl as string;
        expect(originalUrl).not.toBe(routed);

        await redis.start();
        await untilRedisIsBack(t);
        // The in-process copy went with the edit; the next click reads Redis first.
        const response = await edgeVisit(t, `/r/${linkId}`).expect(302);
        expect(response.headers.location).toBe(originalUrl);
      },
      OUTAGE_TEST_MS,
    );

    it(
      'should send a capped link to its original URL uncounted while Redis is down, never past its cap',
      async () => {
        const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
        const created = await t.http
          .post('/v1/links')
          .set('Authorization', creator.authorization)
          .send({ originalUrl: 'https://www.amazon.com/dp/B0BDHWDR12', maxClicks: 2 })
          .expect(201);
        const { linkId, originalUrl } = created.body.data.link as {
          linkId: string;
          originalUrl: string;
        };
        await edgeVisit(t, `/r/${linkId}`).expect(302);
        await untilStored(t, linkId, 1);
        await redis.stop();
        try {
          // Each node would seed the cap from the same count: none counts a capped link alone.
          for (let i = 0; i < 3; i++) {
            const response = await edgeVisit(t, `/r/${linkId}`).expect(302);
            expect(response.headers.location).toBe(originalUrl);
          }
        } finally {
          await redis.start();
        }
        await untilRedisIsBack(t);
        // Redis lost the counter: rebuilt from PostgreSQL's one click, one more is counted.
        await edgeVisit(t, `/r/${linkId}`).expect(302);
        await edgeVisit(t, `/r/${linkId}`).expect(410);
        await untilStored(t, linkId, 2);
        await delay(300);
        expect(await storedRecordIds(t, linkId)).toHaveLength(2);
        expect(spooledRecordIds()).toEqual([]);
      },
      OUTAGE_TEST_MS,
    );

    it(
      'should log the outage once when it starts and once when it ends, and no unhandled error',
      async () => {
        recordedLines.length = 0;
        await redis.stop();
        // Several reconnection attempts (200 ms, 400 ms, 600 ms, ...) fail meanwhile.
        await delay(2_500);
        await redis.start();
        await untilRedisIsBack(t);
        await delay(500);

        const about = (pattern: RegExp) =>
          recordedLines.filter((line) => pattern.test(line.message));
        expect(about(/^Redis at .* unreachable/)).toEqual([
          { level: 'error', message: expect.stringContaining('reconnecting with backoff') },
        ]);
        expect(about(/^Redis at .* reachable again after/)).toHaveLength(1);
        // ioredis prints "Unhandled error event" for a client with no error listener, but only
        // for errors of its own realm, which jest's sandbox keeps from it: so the check is the
        // listeners themselves, on the store's connection and its pub/sub duplicate.
        expect(consoleErrors.filter((line) => line.includes('Unhandled error event'))).toEqual([]);
        const store: unknown = t.app.get(KvStore);
        const clients = store as Record<'redis' | 'subscriber', Redis>;
        expect(clients.redis.listenerCount('error')).toBeGreaterThan(0);
        expect(clients.subscriber.listenerCount('error')).toBeGreaterThan(0);
      },
      OUTAGE_TEST_MS,
    );
  });

  describe('with a small spool (CLICK_SPOOL_MAX_BYTES)', () => {
    beforeAll(async () => {
      t = await startApp({ CLICK_SPOOL_MAX_BYTES: '1024' });
    });
    afterAll(() => t.close());

    it(
      'should keep the oldest clicks when full, serve the rest and count and log what it dropped',
      async () => {
        const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
        const linkId = await createLink(t, creator);
        recordedLines.length = 0;
        await redis.stop();

        await clickTimes(t, linkId, 10);

        const spooled = spooledRecordIds();
        const { spool } = (await health(t)).checks.kv;
        expect(spooled.length).toBeGreaterThan(0);
        expect(spool).toEqual({
          clicks: spooled.length,
          bytes: expect.any(Number),
          droppedClicks: 10 - spooled.length,
        });
        expect(spool?.droppedClicks).toBeGreaterThan(0);
        expect(spool?.bytes).toBeLessThanOrEqual(1024);
        const fullLines = recordedLines.filter((line) => line.message.includes('spool full'));
        // Throttled: the first drop is logged at once, the rest within the interval are counted.
        expect(fullLines).toEqual([
          { level: 'warn', message: expect.stringContaining('CLICK_SPOOL_MAX_BYTES') },
        ]);

        await redis.start();
        await untilStored(t, linkId, spooled.length);
        await untilSpoolIsEmpty();
        expect(new Set(await storedRecordIds(t, linkId))).toEqual(new Set(spooled));
        // Dropped clicks stay reported (for this process's life), the spool itself is empty.
        expect((await health(t)).checks.kv.spool).toMatchObject({
          clicks: 0,
          droppedClicks: 10 - spooled.length,
        });
      },
      OUTAGE_TEST_MS,
    );
  });
});
