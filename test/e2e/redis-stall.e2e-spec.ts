import { Logger } from '@nestjs/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type Redis from 'ioredis';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { KvStore } from '../../src/kv/kv-store';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { edgeVisit } from '../support/edge-visit';
import { pollUntil } from '../support/poll';
import { PrivateRedis, startPrivateRedis } from '../support/private-redis';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The service on a Redis that stops answering without dropping its connections (SIGSTOP of a
 * redis-server of the test's own: a hung disk, a swap storm, a long fork). Every command waits
 * at most REDIS_COMMAND_TIMEOUT_MS, and a timeout is an outage like a lost connection: clicks
 * are admitted in-process and spooled, the API answers from PostgreSQL, health says degraded;
 * after SIGCONT the spooled clicks reach PostgreSQL once each. The embedded default has no
 * Redis to stall: there the suite is skipped.
 */
const usesRedis = (process.env.REDIS_URL ?? '') !== '';
const describeWithRedis = usesRedis ? describe : describe.skip;

const COMMAND_TIMEOUT_MS = 500;
/** Long enough that an answer which waited for Redis is told apart from one that did not. */
const STALL_MS = 8_000;
/** "Not frozen": a few command timeouts, far below the stall. */
const PROMPT_MS = 4 * COMMAND_TIMEOUT_MS;
const TEST_MS = 60_000;

interface Timed {
  what: string;
  status: number;
  ms: number;
  /** Answered while Redis was still stalled. */
  isDuringStall: boolean;
}

describeWithRedis('Redis stall (e2e; skipped on the embedded store, which has no Redis)', () => {
  let redis: PrivateRedis;
  let dataDir: string;
  let t: TestApp;
  let creator: TestCreator;
  let recordedLines: { level: 'log' | 'warn' | 'error'; message: string }[];

  beforeAll(async () => {
    recordedLines = [];
    for (const level of ['log', 'warn', 'error'] as const) {
      jest.spyOn(Logger.prototype, level).mockImplementation((...parts: unknown[]) => {
        recordedLines.push({ level, message: String(parts[0]) });
      });
    }
    redis = await startPrivateRedis();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-stall-'));
    t = await startTestApp({
      REDIS_URL: redis.url,
      DATA_DIR: dataDir,
      REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
      HEALTH_TIMEOUT_MS: '1000',
    });
    creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
  });
  afterAll(async () => {
    await t?.close();
    await redis.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  const health = async (): Promise<{ status: string; checks: { kv: { status: string } } }> =>
    (await t.http.get('/v1/health').expect(200)).body.data;
  const createLink = async (): Promise<string> => {
    const response = await t.http
      .post('/v1/links')
      .set('Authorization', creator.authorization)
      .send({ originalUrl: 'https://www.amazon.com/dp/B0BDHWDR12', visitorCountry: 'US' })
      .expect(201);
    return response.body.data.link.linkId as string;
  };
  const storedRecordIds = async (linkId: string): Promise<string[]> => {
    const rows: { record_id: string }[] = await t.app
      .get(DataSource)
      .query('SELECT record_id FROM clicks WHERE link_id = $1', [linkId]);
    return rows.map((row) => row.record_id);
  };

  /** Stalls Redis for STALL_MS around `during`, timing every answer `during` gets. */
  async function duringStall(
    during: (time: (what: string, call: () => Promise<Response>) => Promise<Response>) => unknown,
  ): Promise<Timed[]> {
    const timed: Timed[] = [];
    let isStalled = true;
    redis.stall();
    const resumed = delay(STALL_MS).then(() => {
      isStalled = false;
      redis.resume();
    });
    try {
      await during(async (what, call) => {
        const startedAt = performance.now();
        const response = await call();
        timed.push({
          what,
          status: response.status,
          ms: Math.round(performance.now() - startedAt),
          isDuringStall: isStalled,
        });
        return response;
      });
    } finally {
      await resumed;
    }
    return timed;
  }

  it(
    'should bound a command by the timeout, refuse the next at once, and serve again once Redis wakes',
    async () => {
      const store = t.app.get(KvStore);
      // Both connections the store opens (commands; pub/sub, made at boot) carry the bound.
      const clients = store as unknown as Record<'redis' | 'subscriber', Redis>;
      expect(clients.redis.options.commandTimeout).toBe(COMMAND_TIMEOUT_MS);
      expect(clients.subscriber.options.commandTimeout).toBe(COMMAND_TIMEOUT_MS);
      const timedCall = async (call: () => Promise<unknown>) => {
        const startedAt = performance.now();
        const error = await call().then(
          () => null,
          (rejection: unknown) => String(rejection),
        );
        return { error, ms: performance.now() - startedAt };
      };

      redis.stall();
      try {
        const first = await timedCall(() => store.getString('stall:probe'));
        expect(first.error).toBe('Error: Command timed out');
        expect(first.ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 5);
        expect(first.ms).toBeLessThan(PROMPT_MS);
        expect(store.isReachable()).toBe(false);
        const next = await timedCall(() => store.getString('stall:probe'));
        expect(next.error).toBe('Error: Redis unreachable: command not sent');
        expect(next.ms).toBeLessThan(50);
      } finally {
        redis.resume();
      }
      // The probe's PINGs: the first one answered ends the outage.
      await pollUntil(
        () => Promise.resolve(store.isReachable()),
        (isReachable) => isReachable,
        { timeoutMs: 2_000, intervalMs: 10 },
      );
      expect(await store.getString('stall:probe')).toBeNull();
    },
    TEST_MS,
  );

  it(
    'should redirect promptly while Redis is stalled and put every click in PostgreSQL once after',
    async () => {
      const linkId = await createLink();
      await edgeVisit(t, `/r/${linkId}`).expect(302);
      await pollUntil(
        () => storedRecordIds(linkId),
        (ids) => ids.length === 1,
      );

      const timed = await duringStall(async (time) => {
        for (let i = 0; i < 15; i++) {
          await time('click', () => edgeVisit(t, `/r/${linkId}`, { 'CF-IPCountry': 'US' }));
        }
      });

      expect(timed.filter(({ status }) => status !== 302)).toEqual([]);
      expect(timed.filter(({ ms, isDuringStall }) => ms > PROMPT_MS || !isDuringStall)).toEqual([]);
      const stored = await pollUntil(
        () => storedRecordIds(linkId),
        (ids) => ids.length >= 16,
        { timeoutMs: 20_000, intervalMs: 100 },
      );
      // Time for a click admitted twice (by Redis once it woke, and from the spool) to arrive.
      await delay(1_000);
      const settled = await storedRecordIds(linkId);
      expect(settled).toHaveLength(16);
      expect(new Set(settled).size).toBe(16);
      expect(new Set(settled)).toEqual(new Set(stored));
    },
    TEST_MS,
  );

  it(
    'should answer the API promptly and without a 5xx while Redis is stalled, health degraded',
    async () => {
      const linkId = await createLink();
      const timed = await duringStall(async (time) => {
        const auth = { Authorization: creator.authorization };
        await time('account', () => t.http.get('/v1/account').set(auth));
        await time('create', () =>
          t.http
            .post('/v1/links')
            .set(auth)
            .send({ originalUrl: 'https://www.amazon.com/dp/B0CHX1W1XY' }),
        );
        await time('read', () => t.http.get(`/v1/links/${linkId}`).set(auth));
        await time('list', () => t.http.get('/v1/links').set(auth));
        await time('unknown key', () =>
          t.http.get('/v1/account').set('Authorization', 'Bearer lp_live_not-a-key'),
        );
        const during = await time('health', () => t.http.get('/v1/health'));
        expect(during.body.data).toMatchObject({
          status: 'degraded',
          checks: { database: { status: 'ok' }, kv: { status: 'unreachable' } },
        });
      });

      expect(timed.map(({ what, status }) => [what, status])).toEqual([
        ['account', 200],
        ['create', 201],
        ['read', 200],
        ['list', 200],
        ['unknown key', 401],
        ['health', 200],
      ]);
      expect(timed.filter(({ ms, isDuringStall }) => ms > PROMPT_MS || !isDuringStall)).toEqual([]);
      const after = await pollUntil(health, (data) => data.checks.kv.status === 'ok', {
        timeoutMs: 10_000,
        intervalMs: 100,
      });
      expect(after).toMatchObject({ status: 'ok', checks: { kv: { status: 'ok' } } });
    },
    TEST_MS,
  );

  it(
    'should log the stall once when it starts and once when it ends',
    async () => {
      recordedLines.length = 0;
      await duringStall(async (time) => {
        for (let i = 0; i < 5; i++) await time('health', () => t.http.get('/v1/health'));
      });
      await pollUntil(health, (data) => data.checks.kv.status === 'ok', {
        timeoutMs: 10_000,
        intervalMs: 100,
      });

      const about = (pattern: RegExp) => recordedLines.filter((line) => pattern.test(line.message));
      expect(about(/^Redis at .* unreachable/)).toEqual([
        {
          level: 'error',
          message: expect.stringContaining(`no reply within ${COMMAND_TIMEOUT_MS} ms`),
        },
      ]);
      expect(about(/^Redis at .* reachable again after/)).toHaveLength(1);
    },
    TEST_MS,
  );
});
