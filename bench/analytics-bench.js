#!/usr/bin/env node
'use strict';
/**
 * `npm run bench -- analytics`: the redirect's latency while dashboards read analytics, against
 * the same redirect without them, in one run (docs/analytics.md "Analytics", docs/benchmarks.md).
 *
 * The edge's reads that can meet analytics in PostgreSQL are those of a link or creator not
 * cached yet, so every visit here is to a link never visited before: BENCH_LARGE_LINKS links of
 * BENCH_LARGE_CREATORS creators, seeded by the large profile's SQL copy (large-profile.js), each
 * visited once, at a fixed rate (open loop: latency counts from when each request was due). One
 * dashboard creator holds BENCH_ANALYTICS_CLICKS clicks spread over the 1,000 days of the issue's
 * call. Rounds alternate:
 *   - baseline: the redirects alone;
 *   - loaded: the same redirects (other links) while BENCH_ANALYTICS_CALLS callers (default 30)
 *     each send the heavy analytics call again as soon as the last one answers, so that many
 *     are always in flight (each with its own key, so no per-key limit turns them away).
 * Each phase reports the redirect's p50 and p99, its statuses, both cores' busy share, and the
 * analytics answers by status. The server (built, production mode, the service's defaults) is
 * pinned to core 0, this generator to core 1 (run-pinned.js); PostgreSQL and Redis run where
 * the kernel puts them.
 *
 * Env: BENCH_DATABASE_URL (dropped and made again, unless it holds the same seeded links),
 * BENCH_REDIS_URL (flushed), BENCH_RATE (redirects a second, default 400), BENCH_DURATION_S
 * (per phase, default 10), BENCH_ROUNDS (default 3), BENCH_ANALYTICS_QUERY (the heavy call's
 * query string), BENCH_SERVER_NODE_FLAGS (the server's Node.js flags: `--trace-gc`, say),
 * BENCH_SERVER_ROOT (another checkout's built server, to measure it with this same script:
 * the code before a change, say). Writes bench/results/analytics-latest.json.
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');
const Redis = require('ioredis');
const { runLoad, serialiseRequest } = require('./load-generator');
const { largeProfile, linkIdOf } = require('./large-profile');
const {
  BENCH_WEBHOOK_SECRET_KEY,
  flushRedis: flushRedisAt,
  hasTaskset,
  pinned,
  resetStores: resetStoresAt,
  runCli: runCliAt,
} = require('./bench-stores');

require('../bin/ensure-built').ensureBuilt();
const root = path.resolve(__dirname, '..');
const SERVER_ROOT = path.resolve(process.env.BENCH_SERVER_ROOT ?? root);
const { generateApiKey, hashApiKey, displayPrefixOf } = require('../dist/src/auth/api-key-format');
const { ulid } = require('ulid');

const DB_URL =
  process.env.BENCH_DATABASE_URL ??
  'postgresql://postgres@127.0.0.1:5432/linkpilot_bench_analytics';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/11';
const PORT = Number(process.env.BENCH_PORT ?? 3910);
/** Node.js flags for the server only (`--trace-gc`, `--cpu-prof`: NODE_OPTIONS refuses some). */
const SERVER_NODE_FLAGS = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** The server's Prometheus endpoint: its own view of the redirect's latency and event loop. */
const METRICS_PORT = PORT + 1;
const RATE = Number(process.env.BENCH_RATE ?? 400);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ANALYTICS_CALLS = Number(process.env.BENCH_ANALYTICS_CALLS ?? 30);
const ANALYTICS_CLICKS = Number(process.env.BENCH_ANALYTICS_CLICKS ?? 1_000_000);
/** The issue's 1,000 days, by a grouping of 3 series: within the bounds, so heavy on both sides. */
const ANALYTICS_QUERY =
  process.env.BENCH_ANALYTICS_QUERY ?? 'interval=day&from=2024-03-02&to=2026-11-26&groupBy=outcome';
/** Seconds the analytics callers run before the redirects start, so all are in flight. */
const ANALYTICS_RAMP_S = 3;
/**
 * A phase at the same rate before the rounds, not reported: the server's compiler and its
 * creator profiles (BENCH_LARGE_CREATORS of them) warm up on links of its own.
 */
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
const CONNECTIONS = 50;
/** Visits planned per phase over what the rate needs: the schedule may run a little long. */
const VISIT_MARGIN = 1.2;
// The large profile's seed at a size where every visit of every phase finds a link of its own.
process.env.BENCH_LARGE_LINKS ??= String(
  Math.ceil(RATE * VISIT_MARGIN) * (WARMUP_S + DURATION_S * 2 * ROUNDS) + CONNECTIONS * 4,
);
process.env.BENCH_LARGE_CREATORS ??= '500';
const TARGET_P99_MS = 50;

const PRODUCT_URLS = [
  'https://www.amazon.com/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12/ref=sr_1_3',
  'https://www.asos.com/nike/nike-air-max-90-trainers/prd/204812345',
  'https://www.flipkart.com/apple-iphone-15-black-128-gb/p/itm6ac6485515ae4?pid=MOBGTAGPTB3VS24W',
  'https://www.etsy.com/listing/123456789/handmade-leather-wallet',
];
/** Fifty visitor countries for the dashboard's clicks. */
const COUNTRIES =
  'US IN GB DE FR JP BR AE SG ZA NG MX AU CA IT ES NL SE NO DK FI PL CZ AT CH BE IE PT GR TR SA EG KE MA AR CL CO PE KR TW VN TH MY ID PH NZ IL UA RO HU'.split(
    ' ',
  );

const flushRedis = () => flushRedisAt(REDIS_URL);
const resetStores = () => resetStoresAt(DB_URL, REDIS_URL);
const runCli = (args) => runCliAt(SERVER_ROOT, DB_URL, REDIS_URL, args);
const pinnedToCore0 = (command, args) => pinned(0, command, args);

const seconds = (ms) => Math.round(ms / 100) / 10;

/**
 * The dashboard: one Enterprise creator, a key per caller, and its clicks spread evenly over
 * the 1,000 days, in monthly partitions as the service keeps them.
 */
async function seedDashboard() {
  const db = new Client({ connectionString: DB_URL });
  await db.connect();
  try {
    const startedAt = Date.now();
    for (let month = new Date(Date.UTC(2024, 2, 1)); month < new Date(Date.UTC(2026, 11, 1));) {
      const next = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
      const [from, to] = [month, next].map((d) => d.toISOString().slice(0, 10));
      await db.query(
        `CREATE TABLE IF NOT EXISTS clicks_${from.slice(0, 7).replace('-', '_')} PARTITION OF clicks FOR VALUES FROM ('${from}') TO ('${to}')`,
      );
      month = next;
    }
    const creatorId = ulid();
    await db.query(
      `INSERT INTO creators (id, email, display_name, plan_id) VALUES ($1, $2, 'Dashboard', 'enterprise')`,
      [creatorId, `bench-dashboard-${creatorId.toLowerCase()}@example.com`],
    );
    const apiKeys = Array.from({ length: ANALYTICS_CALLS }, () => generateApiKey('live'));
    for (const apiKey of apiKeys) {
      await db.query(
        `INSERT INTO api_keys (id, creator_id, key_hash, display_prefix, environment) VALUES ($1, $2, $3, $4, 'live')`,
        [ulid(), creatorId, hashApiKey(apiKey), displayPrefixOf(apiKey)],
      );
    }
    await db.query(
      `INSERT INTO clicks (record_id, link_id, creator_id, environment, merchant_id, region,
                           network_id, preset, outcome, normalized_epc_usd, confidence,
                           deep_link_used, private_deal_applied, visitor_country, device_class,
                           clicked_at)
       SELECT lpad(upper(to_hex(i)), 26, '0'), lpad(upper(to_hex(i % 100)), 26, '0'), $1, 'live',
              'amazon', 'US', 'amazon_associates', 'default',
              (ARRAY['routed', 'fallback', 'passthrough'])[1 + i % 3], 0.42, 0.95, false, false,
              ($3::text[])[1 + i % array_length($3::text[], 1)], 'desktop',
              timestamptz '2024-03-02' + (i::float8 / $2) * interval '1000 days'
         FROM generate_series(0, $2 - 1) AS i`,
      [creatorId, ANALYTICS_CLICKS, COUNTRIES],
    );
    // The insert trigger appended the history's link-rollup deltas (about one per click here):
    // folded now, as after any import of history, not by the server's first compaction in the
    // middle of a phase.
    await db.query('SELECT click_rollup_link_deltas_compact(NULL)');
    await db.query('ANALYZE clicks');
    console.log(
      `bench: ${ANALYTICS_CLICKS} dashboard clicks over 1,000 days written in ${seconds(Date.now() - startedAt)}s`,
    );
    return apiKeys;
  } finally {
    await db.end();
  }
}

function startServer() {
  const [command, args] = pinnedToCore0(process.execPath, [
    ...SERVER_NODE_FLAGS,
    path.join(SERVER_ROOT, 'dist/main.js'),
  ]);
  return spawn(command, args, {
    cwd: SERVER_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(PORT),
      METRICS_PORT: String(METRICS_PORT),
      HOST: '127.0.0.1',
      DATABASE_URL: DB_URL,
      REDIS_URL,
      LOG_LEVEL: 'error',
      PROBES_ENABLED: 'false',
      WEBHOOK_SECRET_KEY: BENCH_WEBHOOK_SECRET_KEY,
    },
    stdio: 'inherit',
  });
}

async function waitForHealth() {
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/v1/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('server did not become healthy');
}

/** Jiffies per core (busy, total) from /proc/stat; empty without /proc. */
function coreTicks() {
  try {
    return fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((line) => /^cpu\d+ /.test(line))
      .map((line) => {
        const [, ...fields] = line.trim().split(/\s+/).map(Number);
        const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
        return { busy: total - fields[3] - fields[4], total };
      });
  } catch {
    return [];
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

const pidsOf = (pgrepArgs) => {
  try {
    return execFileSync('pgrep', pgrepArgs).toString().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** CPU seconds (user + system) each process has used, by pid, from /proc. */
function cpuSecondsByPid(pids) {
  const seconds = new Map();
  for (const pid of pids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      seconds.set(pid, (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS);
    } catch {
      /* exited, or no /proc */
    }
  }
  return seconds;
}

/**
 * Share of one core (percent) that the server, PostgreSQL (every backend on the machine, other
 * databases' included) and Redis used between the meter's start and its reading.
 */
function processCpuMeter(serverPid) {
  const groups = () => ({
    server: [serverPid],
    postgres: pidsOf(['-u', 'postgres']),
    redis: pidsOf(['-x', 'redis-server']),
  });
  const snapshot = () =>
    Object.fromEntries(
      Object.entries(groups()).map(([name, pids]) => [name, cpuSecondsByPid(pids)]),
    );
  const before = snapshot();
  const startedAt = performance.now();
  return () => {
    const elapsedS = (performance.now() - startedAt) / 1000;
    return Object.fromEntries(
      Object.entries(snapshot()).map(([name, seconds]) => {
        let spent = 0;
        for (const [pid, value] of seconds) spent += value - (before[name].get(pid) ?? 0);
        return [name, Math.round((100 * spent) / elapsedS)];
      }),
    );
  };
}

const coreBusyPercent = (before, after) =>
  after.map((core, i) =>
    Math.round((100 * (core.busy - before[i].busy)) / Math.max(1, core.total - before[i].total)),
  );

/**
 * Visits of links `first`.. onwards, each link once, dealt to the connections so that the
 * requests sent in order walk the links in order (the open loop sends round-robin).
 */
let nextAddress = 0;
function visitLists(first, visits) {
  const perConnection = Math.ceil(visits / CONNECTIONS);
  return Array.from({ length: CONNECTIONS }, (_, connection) =>
    Array.from({ length: perConnection }, (_, position) => {
      const n = nextAddress++;
      return serialiseRequest(`/r/${linkIdOf(first + position * CONNECTIONS + connection)}`, {
        'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
        'cf-ipcountry': COUNTRIES[n % COUNTRIES.length],
        'user-agent':
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
      });
    }),
  );
}

/**
 * The server's own view, scraped before and after a phase: the share of redirects it answered
 * within each latency bound (from the request reaching it to the answer written, so the
 * generator's own delays are not in it), and its event loop's delay p99 over the phase
 * (prom-client resets that histogram at each scrape).
 */
async function scrapeServerView() {
  try {
    const text = await (await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`)).text();
    const buckets = {};
    for (const [, le, count] of text.matchAll(
      /^linkpilot_redirect_duration_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm,
    )) {
      buckets[le] = Number(count);
    }
    const lag = /^linkpilot_nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text);
    return { buckets, eventLoopDelayP99Ms: lag === null ? null : Math.round(Number(lag[1]) * 1e3) };
  } catch {
    return null;
  }
}

function serverViewBetween(before, after) {
  if (before === null || after === null) return null;
  const total = (after.buckets['+Inf'] ?? 0) - (before.buckets['+Inf'] ?? 0);
  const within = (le) => (after.buckets[le] ?? 0) - (before.buckets[le] ?? 0);
  const bound = Object.keys(after.buckets)
    .filter((le) => le !== '+Inf')
    .sort((a, b) => Number(a) - Number(b))
    .find((le) => within(le) >= 0.99 * total);
  return {
    redirectP99AtMostMs: bound === undefined ? null : Number(bound) * 1000,
    shareWithin50Ms: Number((within('0.05') / Math.max(1, total)).toFixed(4)),
    eventLoopDelayP99Ms: after.eventLoopDelayP99Ms,
  };
}

const percentile = (sorted, p) =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** Callers sending the heavy call again as each answer arrives, until stopped. */
function startAnalyticsCallers(apiKeys) {
  let isStopping = false;
  const statuses = {};
  const latenciesMs = [];
  const callers = apiKeys.map(async (apiKey) => {
    while (!isStopping) {
      const startedAt = performance.now();
      try {
        const response = await fetch(
          `http://127.0.0.1:${PORT}/v1/analytics/timeseries?${ANALYTICS_QUERY}`,
          {
            headers: { authorization: `Bearer ${apiKey}` },
          },
        );
        const body = await response.arrayBuffer();
        const key = response.status === 200 ? '200' : `${response.status} ${code(body)}`;
        statuses[key] = (statuses[key] ?? 0) + 1;
        if (response.status !== 200) {
          // As a client honouring Retry-After would, and so that refusals do not spin.
          const wait = Number(response.headers.get('retry-after') ?? 1);
          await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 2) * 1000));
        }
      } catch (error) {
        statuses[`error ${error.cause?.code ?? error.name}`] =
          (statuses[`error ${error.cause?.code ?? error.name}`] ?? 0) + 1;
      }
      latenciesMs.push(performance.now() - startedAt);
    }
  });
  return {
    /** Counts since the start (or the last reset). */
    reset() {
      for (const key of Object.keys(statuses)) delete statuses[key];
      latenciesMs.length = 0;
    },
    summary() {
      const sorted = [...latenciesMs].sort((a, b) => a - b);
      return {
        answers: { ...statuses },
        latencyP50Ms: Math.round(percentile(sorted, 0.5) ?? 0),
        latencyMaxMs: Math.round(sorted.at(-1) ?? 0),
      };
    },
    async stop() {
      isStopping = true;
      await Promise.all(callers);
    },
  };
}

function code(body) {
  try {
    return JSON.parse(Buffer.from(body).toString('utf8')).error.code;
  } catch {
    return '?';
  }
}

/** One phase: the redirects of fresh links at the fixed rate; with analytics callers or not. */
async function phase(name, firstLink, apiKeys, serverPid, durationS = DURATION_S) {
  const lists = visitLists(firstLink, Math.ceil(RATE * durationS * VISIT_MARGIN));
  const callers = apiKeys === null ? null : startAnalyticsCallers(apiKeys);
  if (callers !== null) {
    await new Promise((resolve) => setTimeout(resolve, ANALYTICS_RAMP_S * 1000));
    callers.reset();
  }
  const serverBefore = await scrapeServerView();
  const before = coreTicks();
  const readCpu = processCpuMeter(serverPid);
  const result = await runLoad({ port: PORT, lists, durationS, ratePerSecond: RATE });
  const coresBusyPercent = coreBusyPercent(before, coreTicks());
  const cpuPercentOfOneCore = readCpu();
  const server = serverViewBetween(serverBefore, await scrapeServerView());
  const analytics = callers?.summary() ?? null;
  await callers?.stop();
  const report = {
    phase: name,
    redirectsPerSecond: result.requestsPerSecond,
    redirectP50Ms: result.latencyP50Ms,
    redirectP99Ms: result.latencyP99Ms,
    redirectStatuses: result.statuses,
    coresBusyPercent,
    cpuPercentOfOneCore,
    server,
    ...(analytics === null ? {} : { analytics }),
  };
  console.log(
    `bench:   ${name}: ${result.requestsPerSecond} redirects/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, statuses ${JSON.stringify(result.statuses)}; cores busy ${coresBusyPercent.map((busy, core) => `core ${core} ${busy}%`).join(', ')} (server ${cpuPercentOfOneCore.server}%, postgres ${cpuPercentOfOneCore.postgres}%, redis ${cpuPercentOfOneCore.redis}% of a core); server's view: p99 <= ${server?.redirectP99AtMostMs} ms, ${server?.shareWithin50Ms} within 50 ms, event loop p99 ${server?.eventLoopDelayP99Ms} ms${analytics === null ? '' : `; analytics ${JSON.stringify(analytics.answers)}, p50 ${analytics.latencyP50Ms} ms`}`,
  );
  return { report, visitsPlanned: lists.length * lists[0].length };
}

async function main() {
  const profile = largeProfile({
    env: process.env,
    dbUrl: DB_URL,
    tools: {
      flushRedis,
      resetStores,
      runCli,
      productUrls: PRODUCT_URLS,
      ulid,
      generateApiKey,
      hashApiKey,
      displayPrefixOf,
    },
  });
  console.log(`bench: preparing ${DB_URL.replace(/:[^:@/]*@/, ':***@')} and ${REDIS_URL}`);
  await profile.prepare();
  const apiKeys = await seedDashboard();
  const server = startServer();
  try {
    await waitForHealth();
    const { linkCount } = await profile.afterStart(`http://127.0.0.1:${PORT}`);
    console.log(
      `bench: ${linkCount} links, ${RATE} redirects/s of links never visited, ${DURATION_S}s a phase, ${ANALYTICS_CALLS} analytics callers of ${ANALYTICS_QUERY}; server ${SERVER_ROOT}`,
    );
    // One heavy call alone, for the record of what each of them costs.
    const aloneStartedAt = performance.now();
    const alone = await fetch(
      `http://127.0.0.1:${PORT}/v1/analytics/timeseries?${ANALYTICS_QUERY}`,
      {
        headers: { authorization: `Bearer ${apiKeys[0]}` },
      },
    );
    const aloneBytes = (await alone.arrayBuffer()).byteLength;
    const heavyCall = {
      status: alone.status,
      bytes: aloneBytes,
      ms: Math.round(performance.now() - aloneStartedAt),
    };
    console.log(`bench: one analytics call alone: ${JSON.stringify(heavyCall)}`);
    let nextLink = 0;
    nextLink += (await phase('warm-up', nextLink, null, server.pid, WARMUP_S)).visitsPlanned;
    const rounds = [];
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`bench: round ${round}/${ROUNDS}`);
      const baseline = await phase('baseline', nextLink, null, server.pid);
      nextLink += baseline.visitsPlanned;
      const loaded = await phase('loaded', nextLink, apiKeys, server.pid);
      nextLink += loaded.visitsPlanned;
      rounds.push({ baseline: baseline.report, loaded: loaded.report });
    }
    const range = (pick) => {
      const values = rounds.map(pick);
      return [Math.min(...values), Math.max(...values)];
    };
    const report = {
      measuredAt: new Date().toISOString(),
      machine: `${require('node:os').cpus().length} cores (${require('node:os').cpus()[0]?.model ?? 'unknown'}), node ${process.version}, pinned: ${hasTaskset}`,
      server: SERVER_ROOT,
      setup: {
        links: linkCount,
        redirectsPerSecond: RATE,
        durationSeconds: DURATION_S,
        analyticsCallers: ANALYTICS_CALLS,
        analyticsQuery: ANALYTICS_QUERY,
        dashboardClicks: ANALYTICS_CLICKS,
      },
      heavyCallAlone: heavyCall,
      redirectP99Ms: {
        baseline: range((r) => r.baseline.redirectP99Ms),
        loaded: range((r) => r.loaded.redirectP99Ms),
      },
      targetLoadedP99MsAtMost: TARGET_P99_MS,
      met: rounds.every(
        (r) =>
          r.loaded.redirectP99Ms <= TARGET_P99_MS &&
          Object.keys(r.loaded.redirectStatuses).every((status) => status === '302'),
      ),
      rounds,
    };
    fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    fs.writeFileSync(
      path.join(root, 'bench/results/analytics-latest.json'),
      JSON.stringify(report, null, 2) + '\n',
    );
    console.log(JSON.stringify(report, null, 2));
  } finally {
    server.kill('SIGTERM');
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
