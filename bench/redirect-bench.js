#!/usr/bin/env node
'use strict';
/**
 * `npm run bench`: GET /r/:id under load on this machine, against real PostgreSQL and Redis.
 * The server (built, production mode) is pinned to core 0, this load generator to core 1.
 * Same run, same method: a bare node:http server answering a fixed 302 gives the ceiling.
 * Prints and writes bench/results/latest.json. Env: BENCH_DATABASE_URL (a database it may
 * drop and create), BENCH_REDIS_URL (a Redis database it may flush), BENCH_DURATION_S,
 * BENCH_ROUNDS, BENCH_SERVER_NODE_ARGS (extra node flags for the server, e.g. --cpu-prof).
 *
 * `--profile large` (or BENCH_PROFILE=large): a million links of 10,000 creators, visited
 * Zipf-distributed (large-profile.js), with each cache level's hit rate and the server's peak
 * RSS; its own database and Redis database; writes bench/results/large-latest.json.
 *
 * BENCH_INSTRUCTIONS=1: the server and the ceiling run under valgrind's callgrind and each
 * round reports instructions per request (instruction-counter.js): steady where CPU seconds on
 * this VM are not, for comparing two commits. Rates and latencies mean nothing in this mode.
 *
 * `--node <path>[,<path>...]` (or BENCH_NODES): the redirect and the ceiling also run under
 * these node binaries (e.g. Node 24 from `bash scripts/node24.sh`), each server on ports of its
 * own, all on core 0; each round measures every binary in turn, so they share the machine's
 * moods. The report's top level is the machine's node, as without the flag; `nodes` has the
 * figures per binary. Default profile only, not with BENCH_INSTRUCTIONS.
 *
 * BENCH_WRITER_COST=1: each round measures the redirect a second time with the click rollups'
 * insert trigger disabled, and `writerCost` reports the click writer's CPU per click (click
 * workers and PostgreSQL) with the rollups and without, and their ratio.
 *
 * BENCH_ATTRIBUTION=1: each round measures the redirect a second time with every creator's
 * `attribution` on (the network's sub-id parameter with the click's id appended to each routed
 * URL), and `attribution` reports the redirect's rate and the server's CPU per request both
 * ways, and their ratios. Default profile, one node, not with BENCH_WRITER_COST.
 *
 * BENCH_RULES=<n>: the links are made a second time, each with n redirect rules no visitor
 * matches (a country condition, checked and missed on every click), and each round measures
 * the redirect a second time on those links; `rules` reports the rate and the server's CPU per
 * request both ways, their ratios and the added CPU per rule. Default profile, one node, alone.
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { runLoad, serialiseRequest } = require('./load-generator');
const {
  BENCH_WEBHOOK_SECRET_KEY,
  flushRedis: flushRedisAt,
  hasTaskset,
  pinned,
  resetStores: resetStoresAt,
  runCli: runCliAt,
} = require('./bench-stores');
const { largeProfile, zipfLinkPaths } = require('./large-profile');
const { zipfSampler } = require('./zipf');
const { underCallgrind, countInstructions } = require('./instruction-counter');
const { scrapeCacheLookups, cacheHitRates, scrapeMemory, peakRssMiB } = require('./server-probes');
const { Client } = require('pg');
const Redis = require('ioredis');

require('../bin/ensure-built').ensureBuilt();
const root = path.resolve(__dirname, '..');
const { generateApiKey, hashApiKey, displayPrefixOf } = require('../dist/src/auth/api-key-format');
const { NETWORK_IDS } = require('../dist/src/networks/network-ids');
const { ulid } = require('ulid');

const PROFILE = (() => {
  const flag = process.argv.indexOf('--profile');
  return (flag === -1 ? process.env.BENCH_PROFILE : process.argv[flag + 1]) ?? 'default';
})();
if (PROFILE !== 'default' && PROFILE !== 'large') {
  throw new Error(`unknown bench profile ${PROFILE} (default or large)`);
}
const IS_LARGE = PROFILE === 'large';
// The large profile keeps its seeded database between runs: apart from the default's, which
// every default run drops.
const DB_URL =
  process.env.BENCH_DATABASE_URL ??
  `postgresql://postgres@127.0.0.1:5432/${IS_LARGE ? 'linkpilot_bench_large' : 'linkpilot_bench'}`;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? `redis://127.0.0.1:6379/${IS_LARGE ? 10 : 9}`;
const INSTRUCTIONS = process.env.BENCH_INSTRUCTIONS === '1';
const OTHER_NODES = (() => {
  const flag = process.argv.indexOf('--node');
  const list = flag === -1 ? (process.env.BENCH_NODES ?? '') : process.argv[flag + 1];
  return (list ?? '').split(',').filter(Boolean);
})();
if (OTHER_NODES.length > 0 && (IS_LARGE || INSTRUCTIONS)) {
  throw new Error(
    '--node compares node binaries on the default profile, without BENCH_INSTRUCTIONS',
  );
}
// BENCH_WRITER_COST=1 (see the header): every round also without the rollups' insert trigger.
const WRITER_COST = process.env.BENCH_WRITER_COST === '1';
if (WRITER_COST && (OTHER_NODES.length > 0 || IS_LARGE || INSTRUCTIONS)) {
  throw new Error('BENCH_WRITER_COST runs on the default profile, one node, no BENCH_INSTRUCTIONS');
}
// BENCH_ATTRIBUTION=1 (see the header): every round also with the creators' attribution on.
const ATTRIBUTION = process.env.BENCH_ATTRIBUTION === '1';
if (ATTRIBUTION && (WRITER_COST || OTHER_NODES.length > 0 || IS_LARGE || INSTRUCTIONS)) {
  throw new Error('BENCH_ATTRIBUTION runs on the default profile, one node, alone');
}
// BENCH_RULES=<n> (see the header): every round also on links with n rules that never match.
const RULES = Number(process.env.BENCH_RULES ?? 0);
if (!Number.isInteger(RULES) || RULES < 0 || RULES > 20) {
  throw new Error('BENCH_RULES is a count of rules per link, 0 to 20');
}
if (
  RULES > 0 &&
  (WRITER_COST || ATTRIBUTION || OTHER_NODES.length > 0 || IS_LARGE || INSTRUCTIONS)
) {
  throw new Error('BENCH_RULES runs on the default profile, one node, alone');
}
/** Each round's second measurement, if any: the state it is taken in. */
const COMPARED = WRITER_COST || ATTRIBUTION || RULES > 0;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// The large profile warms up longer: its caches start empty and fill from the visits.
// Under callgrind the server runs ~50 times slower: the JIT needs as many requests as natively.
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? (IS_LARGE || INSTRUCTIONS ? 30 : 3));
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
// After the rounds, the redirect and the ceiling at this fixed request rate (open loop), for
// the latency below saturation; 0 leaves it out.
const FIXED_RATE = INSTRUCTIONS ? 0 : Number(process.env.BENCH_FIXED_RATE ?? 10_000);
// Extra node flags for the server, e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const CONNECTIONS = 50;
const CREATORS = 200;
const LINKS_PER_CREATOR = 5;
const CLIENT_ADDRESSES = 50_000;
/** Requests per connection's own list, built before the run and cycled through. */
const REQUESTS_PER_CONNECTION = 1_000;
/** The service's port; the ceiling's is the next one and, in the large profile, METRICS_PORT the one after. */
const PORT = Number(process.env.BENCH_PORT ?? 3900);
const CEILING_PORT = PORT + 1;
/** The large profile scrapes the server's cache counters here (METRICS_PORT). */
const METRICS_PORT = PORT + 2;
/**
 * The node binaries under test: this one (the machine's), then those of `--node`, each with
 * its server's and its ceiling's ports (the first on PORT and CEILING_PORT, the others after
 * METRICS_PORT) and its version, as the report names it.
 */
const NODES = [process.execPath, ...OTHER_NODES].map((binary, i) => ({
  binary,
  version: execFileSync(binary, ['--version']).toString().trim(),
  port: i === 0 ? PORT : METRICS_PORT + 2 * i - 1,
  ceilingPort: i === 0 ? CEILING_PORT : METRICS_PORT + 2 * i,
}));
/** Issue #16's targets for each profile (the RSS is the server's peak resident set, MiB). */
const TARGETS = IS_LARGE
  ? { ratio: 0.2, p99Ms: 15, p99MsAtFixedRate: 15, peakRssMiB: 512 }
  : { ratio: 0.25, p99Ms: 10, p99MsAtFixedRate: 5 };
const flushRedis = () => flushRedisAt(REDIS_URL);
const resetStores = () => resetStoresAt(DB_URL, REDIS_URL);
const runCli = (args) => runCliAt(root, DB_URL, REDIS_URL, args);
/** A server process (the service or the ceiling) on core 0, under callgrind in that mode. */
const serverProcess = (command, args) =>
  pinned(0, ...(INSTRUCTIONS ? underCallgrind(command, args) : [command, args]));

const PRODUCT_URLS = [
  'https://www.amazon.com/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12/ref=sr_1_3',
  'https://www.amazon.in/dp/B0CHX1W1XY?th=1',
  'https://www.amazon.co.uk/dp/B09V3HN1KC',
  'https://www.asos.com/nike/nike-air-max-90-trainers/prd/204812345',
  'https://www.flipkart.com/apple-iphone-15-black-128-gb/p/itm6ac6485515ae4?pid=MOBGTAGPTB3VS24W',
  'https://www.myntra.com/tshirts/roadster/roadster-men-black-t-shirt/1234567/buy',
  'https://www.bestbuy.com/site/apple-airpods-pro/6447382.p?skuId=6447382',
  'https://www.zalando.de/nike-sportswear-air-max-sneaker-ni112o0f8-q11.html',
  'https://www.walmart.com/ip/Apple-AirPods-Pro/520468661',
  'https://www.etsy.com/listing/123456789/handmade-leather-wallet',
];
const { COUNTRIES } = require('./visitor-countries');
/** A country none of COUNTRIES is: BENCH_RULES's rules are checked and missed on every click. */
const UNVISITED_COUNTRY = 'AQ';
const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 330.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
];

/** 200 Enterprise creators with keys and network accounts, written straight to PostgreSQL. */
async function seedCreators() {
  const db = new Client({ connectionString: DB_URL });
  await db.connect();
  const keys = [];
  for (let i = 0; i < CREATORS; i++) {
    const creatorId = ulid();
    const apiKey = generateApiKey('live');
    await db.query(
      `INSERT INTO creators (id, email, display_name, plan_id) VALUES ($1, $2, $3, 'enterprise')`,
      [creatorId, `bench-${i}@example.com`, `Bench ${i}`],
    );
    await db.query(
      `INSERT INTO api_keys (id, creator_id, key_hash, display_prefix, environment) VALUES ($1, $2, $3, $4, 'live')`,
      [ulid(), creatorId, hashApiKey(apiKey), displayPrefixOf(apiKey)],
    );
    for (const network of NETWORK_IDS) {
      await db.query(
        `INSERT INTO network_accounts (creator_id, network_id, affiliate_id) VALUES ($1, $2, $3)`,
        [creatorId, network, `bench${i}`],
      );
    }
    keys.push({ creatorId, apiKey });
  }
  await db.end();
  return keys;
}

/**
 * The servers' DATA_DIR, new for each run: clicks a server spools while Redis is unreachable
 * would otherwise be replayed into the next run's database, and counted against it.
 */
const DATA_DIR = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'linkpilot-bench-'));

const serviceEnv = (port = PORT) => ({
  ...process.env,
  NODE_ENV: 'production',
  PORT: String(port),
  DATA_DIR,
  DATABASE_URL: DB_URL,
  REDIS_URL,
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  WEBHOOK_SECRET_KEY: BENCH_WEBHOOK_SECRET_KEY,
  // The production topology: the edge node serves, a click worker writes the clicks.
  CLICK_CONSUMER_ENABLED: 'false',
  // The large profile reads the cache counters; the default runs the service as configured.
  ...(IS_LARGE ? { METRICS_PORT: String(METRICS_PORT) } : {}),
});

/**
 * The service under test, all on core 0: the edge server and its click workers (nice 19).
 * Under `--node` each other binary gets a server of its own (`workers` 0): the machine's
 * node runs the click workers for all of them.
 */
function startService(node = NODES[0], workerCount = WORKERS) {
  const [command, args] = serverProcess(node.binary, [
    ...SERVER_NODE_ARGS,
    path.join(root, 'dist/main.js'),
  ]);
  const server = spawn(command, args, { cwd: root, env: serviceEnv(node.port), stdio: 'inherit' });
  const workers = Array.from({ length: workerCount }, () => {
    const [workerCommand, workerArgs] = pinned(0, 'nice', [
      '-n',
      '19',
      process.execPath,
      path.join(root, 'bin/linkpilot.js'),
      'clicks',
      'consume',
    ]);
    return spawn(workerCommand, workerArgs, {
      cwd: root,
      env: serviceEnv(),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  });
  return {
    serverPid: server.pid,
    workerPids: workers.map((worker) => worker.pid),
    kill: () => {
      server.kill('SIGTERM');
      for (const worker of workers) worker.kill('SIGTERM');
    },
  };
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds (user + system) each process has used, by pid, from /proc; empty without /proc.
 * CPU per request is far steadier than requests per second on a shared VM.
 */
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

function cpuSecondsOf(pids) {
  const seconds = cpuSecondsByPid(pids);
  return seconds.size === 0 ? null : [...seconds.values()].reduce((sum, value) => sum + value, 0);
}

const pidsOf = (pgrepArgs) => {
  try {
    return execFileSync('pgrep', pgrepArgs).toString().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** CPU microseconds per click that each part of the click's journey spent in a window. */
function clickCpuMeter(service) {
  const groups = () => ({
    server: [service.serverPid],
    clickWorkers: service.workerPids,
    redis: pidsOf(['-x', 'redis-server']),
    postgres: pidsOf(['-u', 'postgres']),
  });
  const snapshot = () =>
    Object.fromEntries(
      Object.entries(groups()).map(([name, pids]) => [name, cpuSecondsByPid(pids)]),
    );
  const before = snapshot();
  return (clicks) => {
    const after = snapshot();
    return Object.fromEntries(
      Object.entries(after).map(([name, seconds]) => {
        let spent = 0;
        for (const [pid, value] of seconds) spent += value - (before[name].get(pid) ?? 0);
        return [name, seconds.size === 0 ? null : Math.round((spent * 1e6) / Math.max(1, clicks))];
      }),
    );
  };
}

/**
 * Runs the load and adds the CPU the given processes spent per request, in microseconds, and
 * under BENCH_INSTRUCTIONS=1 the first one's instructions per request (`host`: its HOST variable).
 */
async function measured(pids, run, host) {
  const before = cpuSecondsOf(pids);
  const coresBefore = coreTicks();
  const loadGeneratorBefore = process.cpuUsage();
  const instructionsSince = INSTRUCTIONS ? countInstructions(pids[0], host) : null;
  const round = summarise(await run());
  const instructions = instructionsSince?.() ?? null;
  const loadGenerator = process.cpuUsage(loadGeneratorBefore);
  const coresBusyPercent = coreBusyPercent(coresBefore, coreTicks());
  const after = cpuSecondsOf(pids);
  const perRequest = (microseconds) => Math.round(microseconds / Math.max(1, round.requests));
  console.log(
    `bench:   ${round.requestsPerSecond} req/s, p99 ${round.latencyP99Ms} ms; cores busy: ${coresBusyPercent.map((busy, core) => `core ${core} ${busy}%`).join(', ')}`,
  );
  if (instructions !== null) {
    console.log(
      `bench:   ${perRequest(instructions.all)} instructions per request (main thread ${perRequest(instructions.mainThread)})`,
    );
  }
  return {
    ...round,
    coresBusyPercent,
    instructionsPerRequest:
      instructions === null
        ? null
        : { all: perRequest(instructions.all), mainThread: perRequest(instructions.mainThread) },
    cpuUsPerRequest: before === null || after === null ? null : perRequest((after - before) * 1e6),
    loadGeneratorCpuUsPerRequest: perRequest(loadGenerator.user + loadGenerator.system),
  };
}

/**
 * Under callgrind a warm-up of seconds is a few thousand requests, and the JIT is still
 * compiling (compiler threads counted too): load in 15 s steps until three steps in a row count
 * within 4% of each other per request, but at least 8 steps (a plateau before the optimising
 * compiler has run looks steady too), at most 40 steps.
 */
async function warmUntilSteady(port, host, pid, lists) {
  const counts = [];
  for (let step = 1; step <= 40; step++) {
    const since = countInstructions(pid, host);
    const { requests } = await load(port, lists, 15);
    counts.push(since().all / Math.max(1, requests));
    console.log(
      `bench:   warming port ${port}: ${Math.round(counts.at(-1))} instructions per request`,
    );
    const lastThree = counts.slice(-3);
    if (step >= 8 && Math.max(...lastThree) / Math.min(...lastThree) < 1.04) return;
  }
  console.log(`bench:   port ${port} not steady after 40 steps; measuring anyway`);
}

async function waitForHealth(port) {
  for (let i = 0; i < (INSTRUCTIONS ? 1_500 : 100); i++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/v1/health`);
      if (response.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('server did not become healthy');
}

/**
 * Each creator's links through the bulk API; with `ruleCount`, each link carries that many
 * redirect rules whose country condition no visitor of the lists meets (BENCH_RULES).
 */
async function createLinks(keys, ruleCount = 0) {
  const linkIds = [];
  const productUrl = (n) => PRODUCT_URLS[n % PRODUCT_URLS.length];
  for (const [i, { apiKey }] of keys.entries()) {
    const links = Array.from({ length: LINKS_PER_CREATOR }, (_, j) => ({
      originalUrl: `${productUrl(i + j)}${productUrl(i + j).includes('?') ? '&' : '?'}v=${i}-${j}`,
      ...(ruleCount > 0
        ? {
            rules: Array.from({ length: ruleCount }, (_, r) => ({
              destinationUrl: productUrl(i + j + r + 1),
              countries: [UNVISITED_COUNTRY],
            })),
          }
        : {}),
    }));
    const response = await fetch(`http://127.0.0.1:${PORT}/v1/links/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ links }),
    });
    const body = await response.json();
    if (response.status !== 207) throw new Error(`bulk create failed: ${JSON.stringify(body)}`);
    for (const link of body.data.created) linkIds.push(link.linkId);
  }
  return linkIds;
}

function addresses() {
  return Array.from(
    { length: CLIENT_ADDRESSES },
    (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  );
}

/**
 * Each connection's own list of visitor requests, serialised once before any run: every
 * request varies the link (`linkPathAt(n)`), client address, country and user agent (a
 * multiplicative hash of the connection and position, so lists differ and addresses spread
 * over creators). Built in position order, so a sampler of links draws the same every run.
 */
function buildRequestLists(linkPathAt, requestsPerConnection) {
  const ips = addresses();
  const lists = Array.from({ length: CONNECTIONS }, () => new Array(requestsPerConnection));
  // Interleaved, so connections at the same position ask for different links and addresses.
  for (let n = 0; n < CONNECTIONS * requestsPerConnection; n++) {
    lists[n % CONNECTIONS][Math.floor(n / CONNECTIONS)] = serialiseRequest(linkPathAt(n), {
      'x-forwarded-for': ips[(n * 104729) % ips.length],
      'cf-ipcountry': COUNTRIES[(n * 31) % COUNTRIES.length],
      'user-agent': USER_AGENTS[(n * 17) % USER_AGENTS.length],
    });
  }
  return lists;
}

/**
 * One run of the load generator on `port` with the pre-built lists. The large profile's runs
 * carry on through its lists (one cursor per server), so no run replays another's visits and
 * the caches see Zipf's tail, not a replay.
 */
const cursors = new Map();
/** Answers received per port over every run: more than the lists hold means they wrapped. */
const answered = new Map();
const load = async (port, lists, durationS, ratePerSecond) => {
  if (IS_LARGE && !cursors.has(port)) cursors.set(port, new Array(lists.length).fill(0));
  const result = await runLoad({
    port,
    lists,
    durationS,
    positions: cursors.get(port),
    ratePerSecond,
  });
  answered.set(port, (answered.get(port) ?? 0) + result.requests);
  return result;
};

/** Jiffies per core (busy, total) from /proc/stat; empty without /proc. */
function coreTicks() {
  try {
    return fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((line) => /^cpu\d+ /.test(line))
      .map((line) => {
        const [, ...fields] = line.trim().split(/\s+/).map(Number);
        const idle = fields[3] + fields[4];
        const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
        return { busy: total - idle, total };
      });
  } catch {
    return [];
  }
}

/** Share of each core busy between two coreTicks readings, in percent. */
const coreBusyPercent = (before, after) =>
  after.map((core, i) =>
    Math.round((100 * (core.busy - before[i].busy)) / Math.max(1, core.total - before[i].total)),
  );

function startCeiling(node = NODES[0]) {
  const source = `require('node:http').createServer((q, s) => { s.writeHead(302, { location: 'https://www.amazon.com/dp/B0BDHWDR12', 'cache-control': 'private, no-store' }); s.end(); }).listen(${node.ceilingPort}, '127.0.0.1');`;
  const [command, args] = serverProcess(node.binary, ['-e', source]);
  return spawn(command, args, { stdio: 'inherit' });
}

/** The click rollups' insert trigger on or off (what the writer pays for them, BENCH_WRITER_COST). */
async function setClickRollups(state) {
  const db = new Client({ connectionString: DB_URL });
  await db.connect();
  await db.query(
    `ALTER TABLE clicks ${state === 'on' ? 'ENABLE' : 'DISABLE'} TRIGGER click_rollups_on_insert`,
  );
  await db.end();
}

const ULID_PATTERN = /[0-9A-HJKMNP-TV-Z]{26}/;

/**
 * Every creator's attribution on or off, as `PATCH /v1/account/settings` sets it (the change
 * log's trigger tells the running servers); waits until the server's redirects show it: a
 * click id (a ULID) in the routed URL of some of the first links, or in none of them.
 */
async function setAttribution(isOn) {
  const db = new Client({ connectionString: DB_URL });
  await db.connect();
  await db.query(`UPDATE creators SET attribution = $1 WHERE attribution <> $1`, [isOn]);
  const { rows } = await db.query(`SELECT id FROM links ORDER BY id LIMIT 20`);
  await db.end();
  const deadline = Date.now() + 15_000;
  for (;;) {
    const locations = await Promise.all(
      rows.map(async ({ id }) => {
        const response = await fetch(`http://127.0.0.1:${PORT}/r/${id}`, {
          redirect: 'manual',
          headers: { 'user-agent': USER_AGENTS[0] },
        });
        return response.headers.get('location') ?? '';
      }),
    );
    if (locations.some((location) => ULID_PATTERN.test(location)) === isOn) return;
    if (Date.now() > deadline) throw new Error(`attribution ${isOn} not applied within 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Folds the click writers' link rollup deltas into the link rollup, as the compactor does. */
async function compactLinkRollupDeltas() {
  const db = new Client({ connectionString: DB_URL });
  await db.connect();
  await db.query('SELECT click_rollup_link_deltas_compact(NULL)');
  await db.end();
}

/** The click writer's CPU per click: the click workers' and PostgreSQL's. */
const writerCpuUs = (cpuUsPerClick) =>
  cpuUsPerClick.clickWorkers === null || cpuUsPerClick.postgres === null
    ? null
    : cpuUsPerClick.clickWorkers + cpuUsPerClick.postgres;

async function countClicksInDatabase() {
  const db = new Client({ connectionString: DB_URL });
  await db.connect();
  const { rows } = await db.query('SELECT count(*)::int AS n FROM clicks');
  await db.end();
  return rows[0].n;
}

async function countCountedClicks(creatorIds) {
  const redis = new Redis(REDIS_URL);
  const { quotaCounterKey } = require('../dist/src/clicks/edge-keys');
  const { billingPeriodOf } = require('../dist/src/account/billing-period');
  const period = billingPeriodOf(Date.now()).id;
  let counted = 0;
  // A thousand counters per MGET: the large profile has 10,000 creators.
  for (let start = 0; start < creatorIds.length; start += 1000) {
    const keys = creatorIds
      .slice(start, start + 1000)
      .map((creatorId) => quotaCounterKey(creatorId, 'live', period));
    for (const value of await redis.mget(keys)) counted += Number(value ?? 0);
  }
  await redis.quit();
  return counted;
}

const summarise = (result) => ({
  requestsPerSecond: result.requestsPerSecond,
  latencyP50Ms: result.latencyP50Ms,
  latencyP99Ms: result.latencyP99Ms,
  requests: result.requests,
  share302: result.status302 / Math.max(1, result.requests),
  errors: result.errors,
});

const redactedDbUrl = DB_URL.replace(/:[^:@/]*@/, ':***@');

/** The default profile: 200 creators and 1,000 links made through the API, visited evenly. */
function defaultProfile() {
  let keys = [];
  return {
    async prepare() {
      console.log(`bench: resetting ${redactedDbUrl} and ${REDIS_URL}`);
      await resetStores();
      runCli(['db', 'migrate']);
      runCli(['db', 'seed']);
      keys = await seedCreators();
    },
    async afterStart() {
      const listsOf = (linkIds) =>
        buildRequestLists(
          (n) => `/r/${linkIds[(n * 7919) % linkIds.length]}`,
          REQUESTS_PER_CONNECTION,
        );
      const linkIds = await createLinks(keys);
      // BENCH_RULES: the same links again, with rules; the compared state visits these.
      const ruledLinkIds = RULES > 0 ? await createLinks(keys, RULES) : [];
      return {
        creatorIds: keys.map(({ creatorId }) => creatorId),
        linkCount: linkIds.length,
        lists: listsOf(linkIds),
        comparedLists: RULES > 0 ? listsOf(ruledLinkIds) : null,
        setup: RULES > 0 ? { rulesPerLink: RULES, linksWithRules: ruledLinkIds.length } : {},
      };
    },
  };
}

/** The million-link profile (large-profile.js): seeded in SQL, visited Zipf-distributed. */
function largeBenchProfile() {
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
  const { shape } = profile;
  return {
    async prepare() {
      const { reused } = await profile.prepare();
      console.log(
        reused
          ? `bench: ${redactedDbUrl} already holds ${shape.links} links of ${shape.creators} creators; clicks cleared, ${REDIS_URL} flushed`
          : `bench: seeding ${shape.links} links of ${shape.creators} creators into ${redactedDbUrl} (reset, with ${REDIS_URL})`,
      );
    },
    async afterStart() {
      const { creatorIds, linkCount, seedSeconds } = await profile.afterStart(
        `http://127.0.0.1:${PORT}`,
      );
      if (seedSeconds !== null) console.log(`bench: seeded in ${seedSeconds}s`);
      const requests = CONNECTIONS * shape.requestsPerConnection;
      console.log(`bench: building ${requests} visits, Zipf s=${shape.zipfExponent}`);
      const sampler = zipfSampler(shape.links, shape.zipfExponent, 16);
      return {
        creatorIds,
        linkCount,
        lists: buildRequestLists(zipfLinkPaths(shape, sampler), shape.requestsPerConnection),
        setup: {
          zipfExponent: shape.zipfExponent,
          visitsInLists: requests,
          seededSeconds: seedSeconds ?? 'reused',
        },
      };
    },
  };
}

/** Whether anything listens on the port already (a stale server would be measured instead). */
const isPortTaken = (port) =>
  new Promise((resolve) => {
    const socket = require('node:net').connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

/** The medians of one side (`pick`: the redirect or the ceiling) over some rounds. */
const medianOf = (rounds, pick) => ({
  requestsPerSecond: median(rounds.map((r) => pick(r).requestsPerSecond)),
  latencyP50Ms: median(rounds.map((r) => pick(r).latencyP50Ms)),
  latencyP99Ms: median(rounds.map((r) => pick(r).latencyP99Ms)),
  share302: Math.min(...rounds.map((r) => pick(r).share302)),
  errors: rounds.reduce((sum, r) => sum + pick(r).errors, 0),
  cpuUsPerRequest: rounds.some((r) => pick(r).cpuUsPerRequest === null)
    ? null
    : median(rounds.map((r) => pick(r).cpuUsPerRequest)),
});

/** The server's CPU per click against the bare server's per request: steadier than req/s. */
const cpuRatio = (redirect, ceiling) =>
  redirect.cpuUsPerRequest === null || ceiling.cpuUsPerRequest === null
    ? null
    : Number((redirect.cpuUsPerRequest / ceiling.cpuUsPerRequest).toFixed(2));

/** Each round's figures, as the report lists them. */
const roundsReport = (rounds) =>
  rounds.map((r) => ({
    redirectRps: r.redirect.requestsPerSecond,
    ceilingRps: r.ceiling.requestsPerSecond,
    ratio: Number(r.ratio.toFixed(3)),
    redirectP99Ms: r.redirect.latencyP99Ms,
    redirectCoresBusyPercent: r.redirect.coresBusyPercent,
    ceilingCoresBusyPercent: r.ceiling.coresBusyPercent,
    redirectCpuUs: r.redirect.cpuUsPerRequest,
    ...(INSTRUCTIONS
      ? {
          redirectInstructions: r.redirect.instructionsPerRequest,
          ceilingInstructions: r.ceiling.instructionsPerRequest,
        }
      : {}),
    ceilingCpuUs: r.ceiling.cpuUsPerRequest,
    cpuUsPerClick: {
      ...r.cpuUsPerClick,
      loadGenerator: r.redirect.loadGeneratorCpuUsPerRequest,
    },
    ceilingLoadGeneratorCpuUs: r.ceiling.loadGeneratorCpuUsPerRequest,
    ...(IS_LARGE ? { cacheHitRates: r.cacheHitRates } : {}),
  }));

/** A ceiling server that listens, or an error (a stale one on its port would be measured). */
async function ceilingListening(ceilingServer, port) {
  // Listening within half a second natively; under callgrind it takes seconds.
  for (let waited = 0; waited < (INSTRUCTIONS ? 60_000 : 500); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (ceilingServer.exitCode !== null || (await isPortTaken(port))) break;
  }
  if (ceilingServer.exitCode !== null) {
    throw new Error(`the ceiling server exited (is port ${port} taken?)`);
  }
}

async function main() {
  const ports = NODES.flatMap((node) => [node.port, node.ceilingPort]);
  for (const port of [...ports, ...(IS_LARGE ? [METRICS_PORT] : [])]) {
    if (await isPortTaken(port)) {
      throw new Error(`port ${port} is taken (another bench or a stale server?); set BENCH_PORT`);
    }
  }
  if (NODES.length > 1) {
    console.log(`bench: node binaries, alternated: ${NODES.map((n) => n.version).join(', ')}`);
  }
  const profile = IS_LARGE ? largeBenchProfile() : defaultProfile();
  await profile.prepare();
  const service = startService();
  const services = [service];
  const ceilingServers = [];
  try {
    await waitForHealth(PORT);
    // One after another: each server's start-up creates the coming months' click partitions.
    for (const node of NODES.slice(1)) {
      services.push(startService(node, 0));
      await waitForHealth(node.port);
    }
    const {
      creatorIds,
      linkCount,
      lists,
      comparedLists = null,
      setup,
    } = await profile.afterStart();
    console.log(
      `bench: ${PROFILE} profile, ${creatorIds.length} creators, ${linkCount} links; warming up ${WARMUP_S}s`,
    );
    for (const node of NODES) {
      const ceilingServer = startCeiling(node);
      ceilingServers.push(ceilingServer);
      await ceilingListening(ceilingServer, node.ceilingPort);
    }
    const ceilingServer = ceilingServers[0];
    const scrapeLookups = () => (IS_LARGE ? scrapeCacheLookups(METRICS_PORT) : null);
    const lookupsAtStart = await scrapeLookups();
    for (const node of NODES) {
      await load(node.port, lists, WARMUP_S);
      if (comparedLists !== null) await load(node.port, comparedLists, WARMUP_S);
      await load(node.ceilingPort, lists, WARMUP_S);
    }
    const measureCeiling = (i = 0) =>
      measured(
        [ceilingServers[i].pid],
        () => load(NODES[i].ceilingPort, lists, DURATION_S),
        process.env.HOST,
      );
    // Counting instructions, nothing is gained by alternating (the count does not drift with
    // the machine), and a server left idle for minutes while the other is measured lets V8
    // drop compiled code and compact its heap, which the next round then pays for: the
    // ceiling's rounds come first, then the redirect's, each right after its own warm-up.
    const ceilingRounds = [];
    if (INSTRUCTIONS) {
      await warmUntilSteady(CEILING_PORT, process.env.HOST, ceilingServer.pid, lists);
      for (let round = 1; round <= ROUNDS; round++) ceilingRounds.push(await measureCeiling());
      await warmUntilSteady(PORT, serviceEnv().HOST, service.serverPid, lists);
    }
    // Redirect and ceiling alternate, ROUNDS times each, and the medians are reported: on this
    // machine the load generator shares a core with PostgreSQL and Redis, and one run of
    // either can be off by a quarter. Under `--node` each round does so for every binary, in
    // the opposite order from the round before, so neither always follows the other.
    const roundsByNode = NODES.map(() => []);
    const rounds = roundsByNode[0];
    /** The rounds' second measurements (BENCH_WRITER_COST, BENCH_ATTRIBUTION). */
    const comparedRounds = [];
    let counted = 0;
    let inDatabase = 0;
    let settledMs = 0;
    allRounds: for (let round = 1; round <= ROUNDS; round++) {
      const order = NODES.map((_, i) => i);
      if (round % 2 === 0) order.reverse();
      for (const i of order) {
        const node = NODES[i];
        console.log(
          NODES.length === 1
            ? `bench: round ${round}/${ROUNDS}: GET /r/:id, then the ceiling, ${CONNECTIONS} connections, ${DURATION_S}s each`
            : `bench: round ${round}/${ROUNDS}, node ${node.version}: GET /r/:id, then its ceiling, ${CONNECTIONS} connections, ${DURATION_S}s each`,
        );
        // Under BENCH_WRITER_COST=1 or BENCH_ATTRIBUTION=1 the round measures the redirect
        // twice, as configured (`main`) and compared (the click rollups' insert trigger off,
        // or attribution on), in the opposite order from the round before.
        const states = COMPARED
          ? round % 2 === 0
            ? ['compared', 'main']
            : ['main', 'compared']
          : ['main'];
        let redirectRound;
        let cpuUsPerClick;
        let lookupsBefore;
        let lookupsAfter;
        for (const state of states) {
          if (WRITER_COST) await setClickRollups(state === 'main' ? 'on' : 'off');
          if (ATTRIBUTION) await setAttribution(state === 'compared');
          const countedBefore = await countCountedClicks(creatorIds);
          const lookupsBeforeState = await scrapeLookups();
          const meter = clickCpuMeter({
            serverPid: services[i].serverPid,
            workerPids: service.workerPids,
          });
          const stateLists = state === 'compared' && comparedLists !== null ? comparedLists : lists;
          const stateRound = await measured(
            [services[i].serverPid],
            () => load(node.port, stateLists, DURATION_S),
            serviceEnv().HOST,
          );
          const stoppedAt = Date.now();
          const lookupsAfterState = await scrapeLookups();
          counted = await countCountedClicks(creatorIds);
          inDatabase = await countClicksInDatabase();
          // Answers still in flight when the load stopped are counted a moment later: both
          // figures are read again until they agree.
          while (inDatabase !== counted && Date.now() - stoppedAt < 10_000) {
            await new Promise((resolve) => setTimeout(resolve, 250));
            counted = await countCountedClicks(creatorIds);
            inDatabase = await countClicksInDatabase();
          }
          settledMs = Math.max(settledMs, Date.now() - stoppedAt);
          // The deltas the rollups' trigger appended are folded into the link rollup every
          // CLICK_ROLLUP_COMPACT_INTERVAL_MS; the last ones now, so their cost is counted.
          await compactLinkRollupDeltas();
          // From the start of the load until its clicks were all stored (and compacted).
          const stateCpu = meter(counted - countedBefore);
          if (state === 'compared') {
            comparedRounds.push({ round, cpuUsPerClick: stateCpu, redirect: stateRound });
          } else {
            [redirectRound, cpuUsPerClick] = [stateRound, stateCpu];
            [lookupsBefore, lookupsAfter] = [lookupsBeforeState, lookupsAfterState];
          }
          if (inDatabase !== counted) break;
        }
        if (WRITER_COST) await setClickRollups('on');
        if (ATTRIBUTION) await setAttribution(false);
        if (inDatabase !== counted) break allRounds;
        const ceilingRound = INSTRUCTIONS ? ceilingRounds[round - 1] : await measureCeiling(i);
        roundsByNode[i].push({
          redirect: redirectRound,
          ceiling: ceilingRound,
          cpuUsPerClick,
          ratio: redirectRound.requestsPerSecond / ceilingRound.requestsPerSecond,
          cacheHitRates: IS_LARGE ? cacheHitRates(lookupsBefore, lookupsAfter) : undefined,
        });
      }
    }
    // Read after the rounds, before the fixed-rate run: a rate over what the server serves (the
    // large profile's, cold) piles requests up in it, which its peak memory would show instead.
    const serverPeakRssMiB = peakRssMiB(service.serverPid);
    const lookupsAtEnd = await scrapeLookups();
    const serverMemoryAtEnd = IS_LARGE ? await scrapeMemory(METRICS_PORT) : null;
    // Below saturation: both servers at the same fixed rate, latency counted from when each
    // request was due (the generator's 1 ms schedule shows in both).
    const fixedRateByNode = NODES.map(() => null);
    if (FIXED_RATE > 0 && roundsByNode.every((nodeRounds) => nodeRounds.length > 0)) {
      const atRate = async (port) => {
        const result = await load(port, lists, DURATION_S, FIXED_RATE);
        console.log(
          `bench:   ${result.requestsPerSecond} req/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms`,
        );
        return {
          requestsPerSecond: result.requestsPerSecond,
          latencyP50Ms: result.latencyP50Ms,
          latencyP99Ms: result.latencyP99Ms,
          share302: result.requests === 0 ? 0 : result.status302 / result.requests,
        };
      };
      for (const [i, node] of NODES.entries()) {
        console.log(
          `bench: GET /r/:id, then the ceiling, at a fixed ${FIXED_RATE} requests/s${NODES.length === 1 ? '' : `, node ${node.version}`}`,
        );
        fixedRateByNode[i] = {
          requestsPerSecond: FIXED_RATE,
          redirect: await atRate(node.port),
          ceiling: await atRate(node.ceilingPort),
        };
      }
    }
    const fixedRate = fixedRateByNode[0];
    for (const server of ceilingServers) server.kill('SIGTERM');
    if (roundsByNode.some((nodeRounds) => nodeRounds.length === 0)) {
      throw new Error(
        `no round completed: ${counted - inDatabase} counted clicks were not in PostgreSQL 10 s after the load stopped`,
      );
    }
    // And at the very end, before the server goes: the peak with the fixed-rate run.
    const serverPeakRssWithFixedRateMiB = peakRssMiB(service.serverPid);
    for (const { kill } of services) kill();
    const redirect = medianOf(rounds, (r) => r.redirect);
    const ceiling = medianOf(rounds, (r) => r.ceiling);
    const report = {
      measuredAt: new Date().toISOString(),
      machine: `${require('node:os').cpus().length} cores (${require('node:os').cpus()[0]?.model ?? 'unknown'}), ${Math.round(require('node:os').totalmem() / 2 ** 30)} GiB, node ${process.version}, pinned: ${hasTaskset}`,
      profile: PROFILE,
      setup: {
        creators: creatorIds.length,
        links: linkCount,
        connections: CONNECTIONS,
        durationSeconds: DURATION_S,
        clientAddresses: CLIENT_ADDRESSES,
        ...setup,
      },
      redirect,
      ceiling,
      ratioToCeiling: Number(median(rounds.map((r) => r.ratio)).toFixed(3)),
      // Under BENCH_INSTRUCTIONS=1: the redirect's instructions per request against the bare
      // server's, every thread of each process (medians of the rounds).
      instructionsPerRequest: INSTRUCTIONS
        ? {
            redirect: median(rounds.map((r) => r.redirect.instructionsPerRequest.all)),
            ceiling: median(rounds.map((r) => r.ceiling.instructionsPerRequest.all)),
            redirectMainThread: median(
              rounds.map((r) => r.redirect.instructionsPerRequest.mainThread),
            ),
          }
        : undefined,
      cpuPerRequestToCeiling: cpuRatio(redirect, ceiling),
      rounds: roundsReport(rounds),
      // Under BENCH_WRITER_COST=1: the click writer's CPU per click (click workers +
      // PostgreSQL), medians of the rounds, with the rollups and without (trigger disabled).
      writerCost: WRITER_COST
        ? (() => {
            const withRollups = median(rounds.map((r) => writerCpuUs(r.cpuUsPerClick)));
            const withoutRollups = median(comparedRounds.map((r) => writerCpuUs(r.cpuUsPerClick)));
            return {
              withRollupsUs: withRollups,
              withoutRollupsUs: withoutRollups,
              ratio: Number((withRollups / withoutRollups).toFixed(3)),
              roundsWithout: comparedRounds.map(({ round, cpuUsPerClick }) => ({
                round,
                cpuUsPerClick,
              })),
            };
          })()
        : undefined,
      // Under BENCH_RULES=<n>: the redirect of links without rules and with n, medians of the
      // rounds, and the server's CPU each rule adds to a click.
      rules:
        RULES > 0
          ? (() => {
              const cpu = (list) => median(list.map((r) => r.redirect.cpuUsPerRequest));
              const rate = (list) => median(list.map((r) => r.redirect.requestsPerSecond));
              const [offCpu, onCpu] = [cpu(rounds), cpu(comparedRounds)];
              const [offRate, onRate] = [rate(rounds), rate(comparedRounds)];
              return {
                rulesPerLink: RULES,
                withoutRequestsPerSecond: offRate,
                withRequestsPerSecond: onRate,
                rateRatio: Number((onRate / offRate).toFixed(3)),
                withoutServerCpuUsPerRequest: offCpu,
                withServerCpuUsPerRequest: onCpu,
                cpuRatio: Number((onCpu / offCpu).toFixed(3)),
                serverCpuUsPerRule: Number(((onCpu - offCpu) / RULES).toFixed(2)),
                roundsWith: comparedRounds.map(({ round, redirect: r }) => ({ round, ...r })),
              };
            })()
          : undefined,
      // Under BENCH_ATTRIBUTION=1: the redirect with every creator's attribution off (as
      // configured) and on, medians of the rounds.
      attribution: ATTRIBUTION
        ? (() => {
            const rate = (list) => median(list.map((r) => r.redirect.requestsPerSecond));
            const cpu = (list) => median(list.map((r) => r.redirect.cpuUsPerRequest));
            const [offRate, onRate] = [rate(rounds), rate(comparedRounds)];
            const [offCpu, onCpu] = [cpu(rounds), cpu(comparedRounds)];
            return {
              offRequestsPerSecond: offRate,
              onRequestsPerSecond: onRate,
              rateRatio: Number((onRate / offRate).toFixed(3)),
              offServerCpuUsPerRequest: offCpu,
              onServerCpuUsPerRequest: onCpu,
              cpuRatio: Number((onCpu / offCpu).toFixed(3)),
              roundsOn: comparedRounds.map(({ round, redirect: r }) => ({ round, ...r })),
            };
          })()
        : undefined,
      // Under `--node`: the same figures for each binary (the first is the top level's).
      nodes:
        NODES.length === 1
          ? undefined
          : NODES.map((node, i) => {
              const nodeRedirect = medianOf(roundsByNode[i], (r) => r.redirect);
              const nodeCeiling = medianOf(roundsByNode[i], (r) => r.ceiling);
              return {
                node: node.version,
                binary: node.binary,
                redirect: nodeRedirect,
                ceiling: nodeCeiling,
                ratioToCeiling: Number(median(roundsByNode[i].map((r) => r.ratio)).toFixed(3)),
                cpuPerRequestToCeiling: cpuRatio(nodeRedirect, nodeCeiling),
                rounds: roundsReport(roundsByNode[i]),
                fixedRate: fixedRateByNode[i],
              };
            }),
      ...(IS_LARGE
        ? {
            // Share of lookups answered at each level, over the warm-up and every round (not the
            // fixed-rate run).
            cacheHitRates: cacheHitRates(lookupsAtStart, lookupsAtEnd),
            // Past the lists' length the visits repeat, and the caches see a replay.
            visitsSent: answered.get(PORT),
            listsWrapped: answered.get(PORT) > lists.length * lists[0].length,
            // The server's peak resident set through the rounds (seeding and warm-up included),
            // and where its memory stood then.
            serverPeakRssMiB,
            serverMemoryAfterRoundsMiB: serverMemoryAtEnd,
            ...(fixedRate === null ? {} : { serverPeakRssWithFixedRateMiB }),
          }
        : {}),
      fixedRate,
      clicks: {
        counted,
        inDatabaseWithin10s: inDatabase,
        settledMs,
        allPersisted: inDatabase === counted,
      },
      targets: {
        ratioToCeilingAtLeast: TARGETS.ratio,
        p99MsAtMost: TARGETS.p99Ms,
        ...(fixedRate === null ? {} : { p99MsAtFixedRateAtMost: TARGETS.p99MsAtFixedRate }),
        share302AtLeast: 0.99,
        ...(IS_LARGE ? { serverPeakRssMiBAtMost: TARGETS.peakRssMiB } : {}),
        met:
          median(rounds.map((r) => r.ratio)) >= TARGETS.ratio &&
          redirect.latencyP99Ms <= TARGETS.p99Ms &&
          (fixedRate === null || fixedRate.redirect.latencyP99Ms <= TARGETS.p99MsAtFixedRate) &&
          redirect.share302 >= 0.99 &&
          inDatabase === counted &&
          (!IS_LARGE || (serverPeakRssMiB !== null && serverPeakRssMiB <= TARGETS.peakRssMiB)),
      },
    };
    fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    fs.writeFileSync(
      path.join(root, `bench/results/${IS_LARGE ? 'large-latest' : 'latest'}.json`),
      JSON.stringify(report, null, 2) + '\n',
    );
    console.log(JSON.stringify(report, null, 2));
  } finally {
    for (const server of ceilingServers) server.kill('SIGTERM');
    for (const { kill } of services) kill();
    fs.rmSync(DATA_DIR, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
