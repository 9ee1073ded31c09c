import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Redis from 'ioredis';
import { Client } from 'pg';
import { billingPeriodOf } from '../../src/account/billing-period';
import { quotaCounterKey } from '../../src/clicks/edge-keys';
import { CLICK_CONSUMER_GROUP } from '../../src/analytics/click-stream.consumer';
import { CLICK_STREAMS } from '../../src/analytics/click-streams';
import { displayPrefixOf, generateApiKey, hashApiKey } from '../../src/auth/api-key-format';
import { newUlid } from '../../src/common/ids';
import { startPrivateRedis } from '../support/private-redis';
import { sparePort } from '../support/spare-ports';
import { startDatabaseProxy } from '../support/tcp-proxy';
import { TEST_WEBHOOK_SECRET_KEY } from '../support/test-webhook-key';

/**
 * `npm run chaos` (docs/operations.md "Durability"): the built service on real PostgreSQL behind a TCP
 * proxy this run controls, on a private Redis it starts (AOF everysec), with a click worker
 * beside it, under load on GET /r/:id at 50 connections, while it (a) kills the click worker
 * with SIGKILL and starts it again, (b) stops Redis for 10 s, (c) cuts PostgreSQL off for
 * 10 s, (d) stalls PostgreSQL for 10 s, (e) stalls Redis for 10 s (SIGSTOP, then SIGCONT).
 * Then it compares, per creator, the 302s it counted with the clicks in PostgreSQL and the
 * quota counters, prints the figures (with the slowest answer of each fault) and writes them
 * to bench/results/chaos.json. Never touches the machine's shared Redis; on PostgreSQL it
 * only creates and drops its own database.
 */
const ROOT = path.resolve(__dirname, '../..');
const DATABASE_URL =
  process.env.CHAOS_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/linkpilot_chaos';
const CONNECTIONS = 50;
const CREATORS = 50;
const LINKS_PER_CREATOR = 10;
/** A visitor address per request, many enough that no per-IP window is ever reached. */
const CLIENT_ADDRESSES = 50_000;
const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
/** When each fault starts and ends, in seconds from the start of the load. */
const SCHEDULE = {
  workerKilledAt: 5,
  workerRestartedAt: 8,
  redisStoppedAt: 12,
  redisStartedAt: 22,
  databaseCutAt: 28,
  databaseRestoredAt: 38,
  databaseStalledAt: 44,
  databaseUnstalledAt: 54,
  redisStalledAt: 60,
  redisResumedAt: 70,
  loadStopsAt: Number(process.env.CHAOS_DURATION_S ?? 80),
};

/** What the service is going through: the slowest answer in flight during each is kept. */
type Phase =
  'steady' | 'workerDown' | 'redisStopped' | 'databaseCut' | 'databaseStalled' | 'redisStalled';
/** How long the stores get to settle (spool replayed, streams drained) after the load. */
const SETTLE_LIMIT_MS = 120_000;
const TARGETS = { lost: 0, duplicated: 0, serverErrors: 0, slowestMsAtMost: 1_000 };

interface Link {
  linkId: string;
  creatorId: string;
}

interface LoadTally {
  requests: number;
  redirects: number;
  serverErrors: number;
  otherStatuses: Record<string, number>;
  failures: number;
  slowestMs: number;
  /** Each answer counts for every phase it was in flight during. */
  slowestMsByPhase: Partial<Record<Phase, number>>;
  redirectsByCreator: Map<string, number>;
}

const log = (message: string): void => {
  process.stdout.write(`chaos: ${message}\n`);
};

async function freshDatabase(): Promise<void> {
  const url = new URL(DATABASE_URL);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
}

function runCli(args: string[], env: NodeJS.ProcessEnv): void {
  execFileSync(process.execPath, [path.join(ROOT, 'bin/linkpilot.js'), ...args, '--json'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Enterprise creators and their links, written straight to PostgreSQL; the links via the API. */
async function seedCreators(): Promise<{ creatorId: string; apiKey: string }[]> {
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  const creators = [];
  for (let i = 0; i < CREATORS; i++) {
    const creatorId = newUlid();
    const apiKey = generateApiKey('live');
    await db.query(
      `INSERT INTO creators (id, email, display_name, plan_id) VALUES ($1, $2, $3, 'enterprise')`,
      [creatorId, `chaos-${i}@example.com`, `Chaos ${i}`],
    );
    await db.query(
      `INSERT INTO api_keys (id, creator_id, key_hash, display_prefix, environment) VALUES ($1, $2, $3, $4, 'live')`,
      [newUlid(), creatorId, hashApiKey(apiKey), displayPrefixOf(apiKey)],
    );
    await db.query(
      `INSERT INTO network_accounts (creator_id, network_id, affiliate_id) VALUES ($1, 'amazon_associates', $2)`,
      [creatorId, `chaos${i}-20`],
    );
    creators.push({ creatorId, apiKey });
  }
  await db.end();
  return creators;
}

async function createLinks(
  port: number,
  creators: { creatorId: string; apiKey: string }[],
): Promise<Link[]> {
  const links: Link[] = [];
  for (const [i, { creatorId, apiKey }] of creators.entries()) {
    const response = await fetch(`http://127.0.0.1:${port}/v1/links/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        links: Array.from({ length: LINKS_PER_CREATOR }, (_, j) => ({
          originalUrl: `https://www.amazon.com/dp/B0BDHWDR${String(i).padStart(2, '0')}?v=${j}`,
        })),
      }),
    });
    const body = (await response.json()) as { data: { created: { linkId: string }[] } };
    if (response.status !== 207) throw new Error(`bulk create: ${JSON.stringify(body)}`);
    for (const { linkId } of body.data.created) links.push({ linkId, creatorId });
  }
  return links;
}

async function waitForHealth(port: number): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const ok = await fetch(`http://127.0.0.1:${port}/livez`)
      .then((response) => response.ok)
      .catch(() => false);
    if (ok) return;
    await delay(200);
  }
  throw new Error('the service did not start');
}

/**
 * 50 keep-alive connections, each sending its next visit as soon as the last one is answered,
 * until `until` resolves. Every visit is a browser from its own address, so each 302 is a
 * counted click (no bot, no window, no quota applies to Enterprise creators here).
 * `phases` lists the phases as they began (performance.now() times), the first at the start.
 */
async function driveLoad(
  port: number,
  links: Link[],
  until: Promise<void>,
  phases: readonly { at: number; phase: Phase }[],
): Promise<LoadTally> {
  const tally: LoadTally = {
    requests: 0,
    redirects: 0,
    serverErrors: 0,
    otherStatuses: {},
    failures: 0,
    slowestMs: 0,
    slowestMsByPhase: {},
    redirectsByCreator: new Map(),
  };
  const answered = (startedAt: number): void => {
    const ms = performance.now() - startedAt;
    tally.requests++;
    tally.slowestMs = Math.max(tally.slowestMs, ms);
    // The phase it was sent in (the last to begin before it), and every one begun since.
    for (let i = phases.length - 1; i >= 0; i--) {
      const { at, phase } = phases[i];
      tally.slowestMsByPhase[phase] = Math.max(tally.slowestMsByPhase[phase] ?? 0, ms);
      if (at <= startedAt) break;
    }
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let stopped = false;
  void until.then(() => (stopped = true));
  let next = 0;
  const visit = (link: Link, address: string): Promise<void> =>
    new Promise((resolve) => {
      const startedAt = performance.now();
      const request = http.get(
        {
          host: '127.0.0.1',
          port,
          path: `/r/${link.linkId}`,
          agent,
          headers: { 'user-agent': BROWSER_UA, 'x-forwarded-for': address },
          timeout: 10_000,
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            answered(startedAt);
            if (status === 302) {
              tally.redirects++;
              const count = tally.redirectsByCreator.get(link.creatorId) ?? 0;
              tally.redirectsByCreator.set(link.creatorId, count + 1);
            } else {
              if (status >= 500) tally.serverErrors++;
              tally.otherStatuses[status] = (tally.otherStatuses[status] ?? 0) + 1;
            }
            resolve();
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error('timed out')));
      request.on('error', () => {
        answered(startedAt);
        tally.failures++;
        resolve();
      });
    });
  const connection = async (): Promise<void> => {
    while (!stopped) {
      const n = next++;
      const i = (n * 7919) % CLIENT_ADDRESSES;
      await visit(links[n % links.length], `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
  agent.destroy();
  return tally;
}

async function storedClicksByCreator(): Promise<Map<string, { clicks: number; records: number }>> {
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  const { rows } = await db.query<{ creator_id: string; clicks: string; records: string }>(
    `SELECT creator_id, count(*) AS clicks, count(DISTINCT record_id) AS records
       FROM clicks GROUP BY creator_id`,
  );
  await db.end();
  return new Map(
    rows.map((row) => [
      row.creator_id,
      { clicks: Number(row.clicks), records: Number(row.records) },
    ]),
  );
}

async function streamBacklog(redis: Redis): Promise<number> {
  let backlog = 0;
  for (const stream of CLICK_STREAMS) backlog += await redis.xlen(stream);
  return backlog;
}

/** Entries read by a worker but not yet written and acknowledged, in every stream. */
async function pendingEntries(redis: Redis): Promise<number> {
  let pending = 0;
  for (const stream of CLICK_STREAMS) {
    const [count] = (await redis.xpending(stream, CLICK_CONSUMER_GROUP)) as [number];
    pending += count;
  }
  return pending;
}

function spoolBytes(dataDir: string): number {
  const dir = path.join(dataDir, 'click-spool');
  if (!fs.existsSync(dir)) return 0;
  return fs
    .readdirSync(dir)
    .reduce((total, file) => total + fs.statSync(path.join(dir, file)).size, 0);
}

describe('npm run chaos', () => {
  it('loses, duplicates and fails no click through worker, Redis and PostgreSQL faults', async () => {
    await freshDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-chaos-'));
    const redis = await startPrivateRedis({ appendOnly: true });
    const proxy = await startDatabaseProxy(DATABASE_URL);
    const port = await sparePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: proxy.url,
      REDIS_URL: redis.url,
      DATA_DIR: dataDir,
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
      CLICK_CONSUMER_ENABLED: 'false',
      // Entries the killed worker held are claimed again after this.
      CLICK_CLAIM_IDLE_MS: '5000',
      // Past its cap the spool serves clicks without recording them (docs/operations.md, Durability); at
      // 15,000 clicks/s a 10 s Redis outage fills the 64 MiB default, so the run gives it room.
      CLICK_SPOOL_MAX_BYTES: String(512 * 1024 * 1024),
    };
    runCli(['db', 'migrate'], { ...env, DATABASE_URL });
    runCli(['db', 'seed'], { ...env, DATABASE_URL });
    const creators = await seedCreators();

    const server = spawn(process.execPath, [path.join(ROOT, 'dist/main.js')], {
      cwd: ROOT,
      env,
      stdio: 'inherit',
    });
    const startWorker = (): ChildProcess =>
      spawn(process.execPath, [path.join(ROOT, 'bin/linkpilot.js'), 'clicks', 'consume'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    let worker = startWorker();
    const admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    admin.on('error', () => undefined);
    try {
      await waitForHealth(port);
      const links = await createLinks(port, creators);
      log(`${creators.length} creators, ${links.length} links; load for ${SCHEDULE.loadStopsAt}s`);

      const phases: { at: number; phase: Phase }[] = [{ at: performance.now(), phase: 'steady' }];
      const enter = (phase: Phase): void => {
        phases.push({ at: performance.now(), phase });
      };
      /** Each fault's phase starts as it is injected and ends once it is undone. */
      const at = (
        seconds: number,
        what: string,
        act: () => unknown,
        { from, to }: { from?: Phase; to?: Phase },
      ): Promise<void> =>
        delay(seconds * 1000).then(async () => {
          log(`${seconds}s: ${what}`);
          if (from !== undefined) enter(from);
          await act();
          if (to !== undefined) enter(to);
        });
      const faults = Promise.all([
        at(SCHEDULE.workerKilledAt, 'click worker killed (SIGKILL)', () => worker.kill('SIGKILL'), {
          from: 'workerDown',
        }),
        at(
          SCHEDULE.workerRestartedAt,
          'click worker started again',
          () => {
            worker = startWorker();
          },
          { to: 'steady' },
        ),
        at(SCHEDULE.redisStoppedAt, 'Redis stopped', () => redis.stop({ keepData: true }), {
          from: 'redisStopped',
        }),
        at(SCHEDULE.redisStartedAt, 'Redis started again', () => redis.start(), { to: 'steady' }),
        at(SCHEDULE.databaseCutAt, 'PostgreSQL cut off', () => proxy.cut(), {
          from: 'databaseCut',
        }),
        at(SCHEDULE.databaseRestoredAt, 'PostgreSQL reachable again', () => proxy.restore(), {
          to: 'steady',
        }),
        at(SCHEDULE.databaseStalledAt, 'PostgreSQL stalled', () => proxy.stall(), {
          from: 'databaseStalled',
        }),
        at(SCHEDULE.databaseUnstalledAt, 'PostgreSQL answering again', () => proxy.restore(), {
          to: 'steady',
        }),
        at(SCHEDULE.redisStalledAt, 'Redis stalled (SIGSTOP)', () => redis.stall(), {
          from: 'redisStalled',
        }),
        at(SCHEDULE.redisResumedAt, 'Redis resumed (SIGCONT)', () => redis.resume(), {
          to: 'steady',
        }),
      ]);
      const tally = await driveLoad(port, links, delay(SCHEDULE.loadStopsAt * 1000), phases);
      await faults;
      log(`load done: ${tally.requests} requests, ${tally.redirects} 302s; settling`);

      // Settled: no spool left, the streams empty, and PostgreSQL's count still for 3 s.
      await admin.connect();
      const settleStartedAt = Date.now();
      let stored = await storedClicksByCreator();
      let stillSince = Date.now();
      while (Date.now() - settleStartedAt < SETTLE_LIMIT_MS) {
        await delay(500);
        const now = await storedClicksByCreator();
        const total = (counts: typeof now): number =>
          [...counts.values()].reduce((sum, { clicks }) => sum + clicks, 0);
        if (total(now) !== total(stored)) stillSince = Date.now();
        stored = now;
        const isSettled =
          spoolBytes(dataDir) === 0 &&
          (await streamBacklog(admin)) === 0 &&
          Date.now() - stillSince >= 3_000;
        if (isSettled) break;
      }
      const settleMs = Date.now() - settleStartedAt;

      const period = billingPeriodOf(Date.now()).id;
      let lost = 0;
      let duplicated = 0;
      let storedTotal = 0;
      let quotaMismatches = 0;
      /** For each creator whose counter is off: by how much, and which way. */
      const quotaCounterMinusStored: number[] = [];
      for (const { creatorId } of creators) {
        const redirects = tally.redirectsByCreator.get(creatorId) ?? 0;
        const { clicks, records } = stored.get(creatorId) ?? { clicks: 0, records: 0 };
        storedTotal += clicks;
        lost += Math.max(0, redirects - clicks);
        duplicated += Math.max(0, clicks - redirects) + (clicks - records);
        const counter = Number((await admin.get(quotaCounterKey(creatorId, 'live', period))) ?? 0);
        if (counter !== clicks) {
          quotaMismatches++;
          quotaCounterMinusStored.push(counter - clicks);
        }
      }
      const figures = {
        measuredAt: new Date().toISOString(),
        schedule: SCHEDULE,
        connections: CONNECTIONS,
        requests: tally.requests,
        redirects302: tally.redirects,
        serverErrors5xx: tally.serverErrors,
        otherStatuses: tally.otherStatuses,
        connectionFailures: tally.failures,
        clicksCounted: tally.redirects,
        clicksStored: storedTotal,
        lost,
        duplicated,
        quotaCountersNotEqualToStored: quotaMismatches,
        quotaCounterMinusStored,
        slowestRequestMs: Math.round(tally.slowestMs),
        slowestRequestMsByPhase: Object.fromEntries(
          Object.entries(tally.slowestMsByPhase).map(([name, ms]) => [name, Math.round(ms)]),
        ),
        settleMs,
        // What had not settled when the settle limit ran out (zero when it settled).
        leftAfterSettling: {
          spoolBytes: spoolBytes(dataDir),
          streamEntries: await streamBacklog(admin),
          pendingEntries: await pendingEntries(admin),
        },
        targets: TARGETS,
      };
      log(JSON.stringify(figures, null, 2));
      fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
      fs.writeFileSync(
        path.join(ROOT, 'bench/results/chaos.json'),
        `${JSON.stringify(figures, null, 2)}\n`,
      );

      expect({
        lost,
        duplicated,
        serverErrors: tally.serverErrors + tally.failures,
        slowestWithinTarget: tally.slowestMs <= TARGETS.slowestMsAtMost,
      }).toEqual({ lost: 0, duplicated: 0, serverErrors: 0, slowestWithinTarget: true });
    } finally {
      worker.kill('SIGTERM');
      server.kill('SIGTERM');
      await Promise.all(
        [server, worker].map(
          (child) =>
            new Promise<void>((resolve) =>
              child.exitCode !== null ? resolve() : child.once('exit', () => resolve()),
            ),
        ),
      );
      admin.disconnect();
      await proxy.close();
      await redis.remove();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
