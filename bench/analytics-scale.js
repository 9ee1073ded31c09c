#!/usr/bin/env node
'use strict';
/**
 * `npm run bench:analytics`: the analytics reads of a creator with millions of clicks in the
 * month, each timed through the API (docs/analytics.md, docs/benchmarks.md "Analytics reads at
 * scale").
 *
 * The data: one "big" creator with `--clicks` clicks (default 10,000,000) and another with
 * `--other` (default 1,000,000), each over the whole current UTC month, its days to come
 * included (so a run on any day of the month measures a full month, the arithmetic of
 * docs/analytics.md, and a re-run within the month reuses the load), on 100 links each
 * created through the API, in the shape click-load.js describes. With `--total N`, the table
 * is then filled up to N clicks by creators of their own (10 links each), a creator-month of
 * `--clicks` at a time, alternately in the current month and in earlier ones (so the current
 * month's partition, the rollups and the table all grow); the big creator's own clicks stay
 * as they were, so the second set of figures shows what the size of the table costs its
 * reads, not what a longer history of the creator's own does.
 *
 * The watermark (docs/analytics.md "How they stay exact"): the creator rollups hold the hours
 * before it, and reads take the later ones from the link rollup. In production no click lies
 * in the future, and the settling keeps the watermark within the last one or two hours. So
 * before timing, the bench moves it (through ClickRollupsRepository.moveWatermark, as the
 * settling does) to `--open-hours` (default 2) hours before the end of the month: the reads
 * then see the month as they would in its last hour, within five minutes of that hour's start,
 * the most a month ever holds (every hour loaded, the last two still open). Left where the
 * load's triggers put it (the hour the migrations ran), the month's remaining days would be
 * read from the link rollup: the cost of some hundred open hours, which production never has.
 * `--open-hours N` times the reads with N open hours, the cost of a lagging settling.
 *
 * The figures: every read of bench/analytics-scale-reads.js, a warm-up call and then
 * `--runs` (default 5) timed calls each, their medians; then the targets as PASS/FAIL lines:
 *   - at the base size, every read answers 200 with a median <= 50 ms, and the month's
 *     `totalClicks` (and the account's usage seeded from the rollups) equals `count(*)` of
 *     the big creator's clicks of the month;
 *   - with `--total`, every read within 2x of its median at the base size (measured in the
 *     same run before the table grows, or else taken from the last run's result file).
 *
 * Loading: SQL `INSERT ... SELECT generate_series` a day per statement, with the rollup
 * triggers on, so the rollups are kept exact as for any writer. Measured on this 2-core
 * machine, the triggers on were faster than the triggers off followed by `linkpilot
 * analytics rebuild` at both sizes tried: 1,000,000 clicks in 43 s against 26 s + 37 s,
 * 3,000,000 in 134 s against 104 s + 73 s (the rebuild reads every click back and writes the
 * link rollup an hour per transaction). The statements are INSERT ... ON CONFLICT DO NOTHING,
 * so a load stopped half way resumes: the rows already there are skipped, and the triggers
 * count only the rows inserted.
 *
 * The database is kept between runs: its comment records the shape loaded (a marker, as in
 * large-profile.js), and a run that finds the same month, `--clicks` and `--other` reuses it
 * (and adds to it, for a larger `--total`); anything else drops and loads it again. Disk:
 * 7.4 GB for the default 11,000,000 clicks (5.5 GB of clicks with their indexes, 1.9 GB of
 * link rollup), and some 5.5 GB more per 10,000,000 of the fill: about 56 GB at 100,000,000.
 *
 * Env: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/
 * linkpilot_bench_analytics_scale, apart from `npm run bench -- analytics`'s own database,
 * which that bench reseeds), BENCH_REDIS_URL (flushed; default redis://127.0.0.1:6379/12),
 * BENCH_PORT (default 3920; metrics on the next port). Writes
 * bench/results/analytics-scale-latest.json.
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { Client } = require('pg');
const Redis = require('ioredis');
const {
  BENCH_WEBHOOK_SECRET_KEY,
  flushRedis,
  hasTaskset,
  pinned,
  resetStores,
  runCli,
} = require('./bench-stores');

require('../bin/ensure-built').ensureBuilt();
const {
  COUNTRIES,
  MERCHANTS,
  ensureMonthPartition,
  loadCreatorMonth,
  monthStartOf,
} = require('./click-load');
const { readsOf, timeReads } = require('./analytics-scale-reads');
const { quotaCounterKey } = require('../dist/src/clicks/edge-keys');
const { billingPeriodOf } = require('../dist/src/account/billing-period');

const root = path.resolve(__dirname, '..');
const DB_URL =
  process.env.BENCH_DATABASE_URL ??
  'postgresql://postgres@127.0.0.1:5432/linkpilot_bench_analytics_scale';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12';
const PORT = Number(process.env.BENCH_PORT ?? 3920);
const BASE_URL = `http://127.0.0.1:${PORT}`;
const RESULT_FILE = path.join(root, 'bench/results/analytics-scale-latest.json');

/** Bump when the rows a load writes change, so an older load is made again. */
const SEED_VERSION = 1;
const SEED_NAME = 'linkpilot-bench-analytics-scale';
const LINKS_PER_CREATOR = 100;
const FILLER_LINKS_PER_CREATOR = 10;
const TARGET_MEDIAN_MS = 50;
const TARGET_GROWTH_FACTOR = 2;
const EMAIL = {
  big: 'bench-analytics-big@example.com',
  other: 'bench-analytics-other@example.com',
  filler: (n) => `bench-analytics-filler-${n}@example.com`,
};
/** Record-id slots (click-load.js): one per creator-month loaded. */
const SLOT = { big: 0, other: 1, filler: (n) => 1 + n };
const PROBE_TITLE = 'bench-analytics probe';
const PRODUCT_URL = 'https://www.amazon.com/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12';

const seconds = (ms) => Math.round(ms / 100) / 10;
const thousands = (n) => n.toLocaleString('en-US');
const redacted = (url) => url.replace(/:[^:@/]*@/, ':***@');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const HOUR_MS = 60 * 60 * 1000;

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      clicks: { type: 'string', default: '10000000' },
      other: { type: 'string', default: '1000000' },
      total: { type: 'string' },
      runs: { type: 'string', default: '5' },
      'open-hours': { type: 'string', default: '2' },
    },
  });
  const count = (name, text, min) => {
    const value = Number(String(text).replace(/[_,]/g, ''));
    if (!Number.isSafeInteger(value) || value < min) {
      throw new Error(`--${name} must be a whole number of at least ${min}; got ${text}`);
    }
    return value;
  };
  const clicks = count('clicks', values.clicks, 1);
  const other = count('other', values.other, 0);
  const total = values.total === undefined ? clicks + other : count('total', values.total, 1);
  if (total < clicks + other) {
    throw new Error(`--total (${total}) must be at least --clicks + --other (${clicks + other})`);
  }
  return {
    clicks,
    other,
    base: clicks + other,
    total,
    runs: count('runs', values.runs, 1),
    openHours: count('open-hours', values['open-hours'], 0),
  };
}

/** The current UTC month: its first instant and its first and last days. */
function currentMonth(nowMs) {
  const startMs = monthStartOf(nowMs);
  const endMs = monthStartOf(nowMs, 1);
  return {
    id: new Date(startMs).toISOString().slice(0, 7),
    startMs,
    endMs,
    first: new Date(startMs).toISOString().slice(0, 10),
    last: new Date(endMs - 1).toISOString().slice(0, 10),
  };
}

/**
 * The creator-months that fill the table from the base size up to `total`: `clicks` each
 * (the last one what is left), filler creator n in the current month for odd n and in
 * month -n/2 for even n. Deterministic, so a stopped fill resumes where it was.
 */
function fillSegments({ clicks, base, total }) {
  const segments = [];
  for (let loaded = base, n = 1; loaded < total; n++) {
    const size = Math.min(clicks, total - loaded);
    segments.push({ filler: n, monthOffset: n % 2 === 1 ? 0 : -n / 2, clicks: size, loaded });
    loaded += size;
  }
  return segments;
}

async function connect() {
  const db = new Client({ connectionString: DB_URL });
  await db.connect();
  return db;
}

/** The database's marker (parsed), or null when it has none, or does not exist. */
async function readMarker() {
  let db;
  try {
    db = await connect();
  } catch (error) {
    if (error.code === '3D000') return null; // no such database
    throw error;
  }
  try {
    const { rows } = await db.query(
      `SELECT shobj_description(oid, 'pg_database') AS marker FROM pg_database WHERE datname = current_database()`,
    );
    return JSON.parse(rows[0]?.marker ?? 'null');
  } catch {
    return null;
  } finally {
    await db.end();
  }
}

async function writeMarker(db, marker) {
  const { rows } = await db.query('SELECT current_database() AS name');
  const text = JSON.stringify(marker).replace(/'/g, "''");
  await db.query(`COMMENT ON DATABASE "${rows[0].name.replace(/"/g, '""')}" IS '${text}'`);
}

/** `linkpilot <args> --json`'s answer, on the bench's stores. */
function cliJson(args) {
  const output = execFileSync(
    process.execPath,
    [path.join(root, 'bin/linkpilot.js'), ...args, '--json'],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: DB_URL, REDIS_URL, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return JSON.parse(output.toString());
}

/** The creator of `email`, made by the CLI (Enterprise) when there is none yet. */
async function creatorOf(db, email, { withNetworkAccounts }) {
  const { rows } = await db.query('SELECT id FROM creators WHERE email = $1', [email]);
  if (rows.length > 0) return rows[0].id;
  const args = ['creators', 'create', '--plan', 'enterprise', '--email', email];
  if (!withNetworkAccounts) args.push('--no-network-accounts');
  return cliJson(args).creator.creatorId;
}

/** A fresh API key of the creator (keys are stored hashed: each run issues its own). */
const issueKey = (creatorId) => cliJson(['keys', 'create', '--creator', creatorId]).apiKey.apiKey;

/** The creator's bench links, made through the API when missing: `count` of them, and a probe. */
async function linksOf(db, creatorId, apiKey, count, { withProbe }) {
  const titles = Array.from({ length: count }, (_, i) => `bench-analytics ${i}`);
  if (withProbe) titles.push(PROBE_TITLE);
  const existing = async () =>
    new Map(
      (
        await db.query(
          `SELECT title, id FROM links WHERE creator_id = $1 AND title = ANY($2) AND deleted_at IS NULL`,
          [creatorId, titles],
        )
      ).rows.map((row) => [row.title, row.id]),
    );
  const found = await existing();
  for (const [i, title] of titles.entries()) {
    if (found.has(title)) continue;
    const response = await fetch(`${BASE_URL}/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ originalUrl: `${PRODUCT_URL}?bench=${i}`, title }),
    });
    const body = await response.json();
    if (response.status !== 201) throw new Error(`link create failed: ${JSON.stringify(body)}`);
  }
  const all = await existing();
  return {
    linkIds: titles.slice(0, count).map((title) => all.get(title)),
    probeLinkId: all.get(PROBE_TITLE) ?? null,
  };
}

/**
 * Link ids of a filler creator: its clicks need no link rows (no read of theirs is timed).
 * Ten links, not a hundred: the link rollup's rows grow with links × hours, and at 100,000,000
 * clicks the disk is the limit (a hundred would add some 1.3 GB per creator-month).
 */
const fillerLinkIds = (n) =>
  Array.from(
    { length: FILLER_LINKS_PER_CREATOR },
    (_, i) => `01BENCHFILL${String(n).padStart(4, '0')}${String(i).padStart(3, '0')}`,
  );

/** Writes a creator-month, printing a line per day; answers the seconds it took. */
async function loadMonth(db, label, load) {
  const startedAt = performance.now();
  await loadCreatorMonth(db, {
    ...load,
    onDay: ({ day, days, clicks, ms }) =>
      console.log(
        `bench: ${label}: day ${day}/${days}, ${thousands(clicks)} clicks in ${seconds(ms)}s (${seconds(performance.now() - startedAt)}s so far)`,
      ),
  });
  return seconds(performance.now() - startedAt);
}

/**
 * Moves the watermark to `openHours` hours before the month's end, forward or back, through
 * the repository the settling uses (its statements on this connection); answers the seconds
 * it took. Clicks loaded later (the fill) go to every rollup at once, as late clicks do.
 */
async function placeWatermark(db, month, openHours) {
  const { ClickRollupsRepository } = require('../dist/src/analytics/click-rollups.repository');
  const manager = { query: async (sql, parameters) => (await db.query(sql, parameters)).rows };
  const dataSource = {
    ...manager,
    async transaction(work) {
      await db.query('BEGIN');
      try {
        const result = await work(manager);
        await db.query('COMMIT');
        return result;
      } catch (error) {
        await db.query('ROLLBACK');
        throw error;
      }
    },
  };
  const to = new Date(month.endMs - openHours * HOUR_MS);
  const startedAt = performance.now();
  const fromMs = await new ClickRollupsRepository(dataSource).moveWatermark(to, {
    canMoveBack: true,
  });
  const took = seconds(performance.now() - startedAt);
  if (fromMs === to.getTime()) return { watermark: to.toISOString(), openHours, seconds: 0 };
  console.log(
    `bench: watermark moved from ${Number.isFinite(fromMs) ? new Date(fromMs).toISOString() : 'infinity'} to ${to.toISOString()} (${openHours} open hours) in ${took}s`,
  );
  // The creator rollups took (or gave up) the rows of the hours passed: fresh statistics.
  const vacuumAnalyzeSeconds = await settle(db);
  return { watermark: to.toISOString(), openHours, seconds: took, vacuumAnalyzeSeconds };
}

/** Vacuums and analyzes the tables a load wrote, as autovacuum would in time. */
async function settle(db) {
  const startedAt = performance.now();
  await db.query(
    'VACUUM (ANALYZE) clicks, click_rollup_links, click_rollup_link_deltas, click_rollup_route_days, click_rollup_route_hours, click_rollup_country_hours, click_rollup_device_hours, click_rollup_region_days, click_rollup_merchant_region_days',
  );
  return seconds(performance.now() - startedAt);
}

function startServer() {
  const [command, args] = pinned(0, process.execPath, [path.join(root, 'dist/main.js')]);
  return spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(PORT),
      METRICS_PORT: String(PORT + 1),
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

async function waitForHealth(server) {
  for (let i = 0; i < 300; i++) {
    if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}`);
    try {
      if ((await fetch(`${BASE_URL}/v1/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await sleep(200);
  }
  throw new Error('server did not become healthy');
}

/** The big creator's clicks of the month, counted from the raw rows. */
async function countMonth(db, creatorId, month) {
  const { rows } = await db.query(
    `SELECT count(*)::bigint AS clicks FROM clicks
      WHERE creator_id = $1 AND environment = 'live' AND clicked_at >= $2 AND clicked_at < $3`,
    [creatorId, new Date(month.startMs), new Date(month.endMs)],
  );
  return Number(rows[0].clicks);
}

/** Rows of each rollup holding the big creator's month: what its reads aggregate. */
async function rollupRowsOf(db, creatorId, month) {
  const rows = {};
  for (const [table, bucket] of [
    ['click_rollup_links', 'hour'],
    ['click_rollup_route_days', 'day'],
    ['click_rollup_route_hours', 'hour'],
    ['click_rollup_country_hours', 'hour'],
    ['click_rollup_device_hours', 'hour'],
    ['click_rollup_region_days', 'day'],
    ['click_rollup_merchant_region_days', 'day'],
  ]) {
    const range =
      bucket === 'day'
        ? [month.first, month.last]
        : [new Date(month.startMs), new Date(month.endMs - 1)];
    const result = await db.query(
      `SELECT count(*)::int AS n FROM ${table}
        WHERE creator_id = $1 AND environment = 'live' AND ${bucket} BETWEEN $2 AND $3`,
      [creatorId, ...range],
    );
    rows[table] = result.rows[0].n;
  }
  return rows;
}

/**
 * One click on the probe link through the redirect, as a visitor's: its admission seeds the
 * big creator's quota counter in Redis from the rollups, when it is missing (so `GET
 * /v1/account` reads a counter), and the click writer stores it. Waits until the click is in
 * PostgreSQL; answers how many clicks the probe link has.
 */
const probeClicksOf = async (db, probeLinkId) =>
  (await db.query('SELECT count(*)::int AS n FROM clicks WHERE link_id = $1', [probeLinkId]))
    .rows[0].n;

async function clickProbe(db, probeLinkId) {
  const before = await probeClicksOf(db, probeLinkId);
  const response = await fetch(`${BASE_URL}/r/${probeLinkId}`, {
    redirect: 'manual',
    headers: {
      'user-agent':
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
      'x-forwarded-for': '10.1.2.3',
      'cf-ipcountry': 'US',
    },
  });
  await response.arrayBuffer();
  if (response.status !== 302) throw new Error(`probe click answered ${response.status}`);
  for (let i = 0; i < 150; i++) {
    const clicks = await probeClicksOf(db, probeLinkId);
    if (clicks > before) return clicks;
    await sleep(200);
  }
  throw new Error('the probe click did not reach PostgreSQL within 30 s');
}

/**
 * Times every read of the big creator's month (after a probe click, so its quota counter is
 * in Redis) and counts its clicks of the month; prints the table.
 */
async function measure(db, { label, loaded, bench, month, runs, openHours }) {
  const watermark = await placeWatermark(db, month, openHours);
  const tableClicks = loaded + (await clickProbe(db, bench.probeLinkId));
  console.log(`bench: timing the reads with ${thousands(tableClicks)} clicks in the table`);
  const redis = new Redis(REDIS_URL);
  const counterKey = quotaCounterKey(bench.bigId, 'live', billingPeriodOf(Date.now()).id);
  try {
    const reads = readsOf({
      month,
      today: new Date().toISOString().slice(0, 10),
      linkId: bench.linkIds[0],
      merchantId: MERCHANTS[0],
      countries: COUNTRIES.length,
    });
    const results = await timeReads({
      baseUrl: BASE_URL,
      apiKey: bench.apiKey,
      reads,
      runs,
      deleteCounter: () => redis.del(counterKey),
    });
    const monthCount = await countMonth(db, bench.bigId, month);
    const rollupRows = await rollupRowsOf(db, bench.bigId, month);
    console.log(`bench: the creator's month in the rollups: ${JSON.stringify(rollupRows)} rows`);
    const width = Math.max(...results.map((result) => result.name.length));
    console.log(`bench: ${'read'.padEnd(width)}  statuses    median   min     max  (ms)`);
    for (const result of results) {
      const statuses = Object.entries(result.statuses)
        .map(([status, n]) => `${n}x${status}`)
        .join(',');
      console.log(
        `bench: ${result.name.padEnd(width)}  ${statuses.padEnd(10)} ${String(result.medianMs).padStart(7)} ${String(Math.min(...result.runsMs)).padStart(6)} ${String(Math.max(...result.runsMs)).padStart(7)}`,
      );
    }
    return { label, tableClicks, monthCount, rollupRows, watermark, reads: results };
  } finally {
    redis.disconnect();
  }
}

/** The targets of a phase at the base size: a heading and PASS/FAIL lines. */
function baseTargets(phase, options) {
  const summary = phase.reads.find((read) => read.totalClicks !== undefined);
  const seeded = phase.reads.find((read) => read.clicksUsedThisPeriod !== undefined);
  return {
    heading:
      `with ${thousands(options.clicks)} clicks for one creator in the month` +
      `${options.clicks === 10_000_000 ? '' : ' (the targets are set for 10,000,000)'}: ` +
      `every read answers 200 with a median <= ${TARGET_MEDIAN_MS} ms, and the month's count is exact`,
    lines: [
      ...phase.reads.map((read) => ({
        target: read.name,
        pass: read.statuses[200] === options.runs && read.medianMs <= TARGET_MEDIAN_MS,
        detail: `${read.medianMs} ms${read.statuses[200] === options.runs ? '' : `, answers ${JSON.stringify(read.statuses)}`}`,
      })),
      {
        target: "summary of the month: totalClicks = count(*) of the creator's clicks of the month",
        pass: summary?.totalClicks === phase.monthCount,
        detail: `${summary?.totalClicks} and ${phase.monthCount}`,
      },
      {
        target: 'account, counter deleted: clicksUsedThisPeriod = that count(*)',
        pass: seeded?.clicksUsedThisPeriod === phase.monthCount,
        detail: `${seeded?.clicksUsedThisPeriod} and ${phase.monthCount}`,
      },
    ],
  };
}

/** The targets of a phase at `--total`, against the same reads at the base size. */
function growthTargets(phase, basePhase, options) {
  const heading =
    `with ${thousands(phase.tableClicks)} clicks in the table: every read answers 200 ` +
    `within ${TARGET_GROWTH_FACTOR}x its median with ${thousands(basePhase?.tableClicks ?? options.base)}`;
  if (basePhase === null) {
    return {
      heading,
      lines: [
        {
          target: 'the base figures',
          pass: false,
          detail: `none for this shape: run once without --total first`,
        },
      ],
    };
  }
  const baseOf = new Map(basePhase.reads.map((read) => [read.name, read]));
  const summary = phase.reads.find((read) => read.totalClicks !== undefined);
  return {
    heading,
    lines: [
      ...phase.reads.map((read) => {
        const before = baseOf.get(read.name);
        return {
          target: read.name,
          pass:
            before !== undefined &&
            read.statuses[200] === options.runs &&
            read.medianMs <= TARGET_GROWTH_FACTOR * before.medianMs,
          detail: `${read.medianMs} ms against ${before?.medianMs} ms${read.statuses[200] === options.runs ? '' : `, answers ${JSON.stringify(read.statuses)}`}`,
        };
      }),
      {
        target: "summary of the month: totalClicks = count(*) of the creator's clicks of the month",
        pass: summary?.totalClicks === phase.monthCount,
        detail: `${summary?.totalClicks} and ${phase.monthCount}`,
      },
    ],
  };
}

/** The base-size phase of the last run of this shape, when this run did not measure one. */
function storedBasePhase(options, month) {
  try {
    const last = JSON.parse(fs.readFileSync(RESULT_FILE, 'utf8'));
    const same =
      last.setup.month === month.id &&
      last.setup.clicks === options.clicks &&
      last.setup.other === options.other &&
      last.setup.openHours === options.openHours;
    const phase = same ? last.phases.find((candidate) => candidate.label === 'base') : undefined;
    // A phase carried over keeps the date it was measured.
    return phase === undefined ? null : { measuredAt: last.measuredAt, ...phase };
  } catch {
    return null;
  }
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const month = currentMonth(Date.now());
  const shape = {
    seed: SEED_NAME,
    version: SEED_VERSION,
    month: month.id,
    clicks: options.clicks,
    other: options.other,
  };
  const marker = await readMarker();
  const isReused =
    marker !== null &&
    Object.entries(shape).every(([key, value]) => marker[key] === value) &&
    marker.total <= options.total;
  console.log(
    `bench: ${redacted(DB_URL)}: ${isReused ? `reusing its ${thousands(marker.total)} clicks` : 'loading afresh'} (${thousands(options.clicks)} + ${thousands(options.other)} clicks in ${month.id}, ${thousands(options.total)} in the table)`,
  );
  if (isReused) await flushRedis(REDIS_URL);
  else await resetStores(DB_URL, REDIS_URL);
  runCli(root, DB_URL, REDIS_URL, ['db', 'migrate']);
  runCli(root, DB_URL, REDIS_URL, ['db', 'seed']);

  const server = startServer();
  const db = await connect();
  try {
    await waitForHealth(server);
    const bigId = await creatorOf(db, EMAIL.big, { withNetworkAccounts: true });
    const otherId = await creatorOf(db, EMAIL.other, { withNetworkAccounts: true });
    const apiKey = issueKey(bigId);
    const bigLinks = await linksOf(db, bigId, apiKey, LINKS_PER_CREATOR, { withProbe: true });
    const bench = { bigId, apiKey, ...bigLinks };
    let load = isReused ? marker.load : { seconds: {} };
    let loaded = isReused ? marker.total : 0;

    if (!isReused) {
      const otherLinks = await linksOf(db, otherId, issueKey(otherId), LINKS_PER_CREATOR, {
        withProbe: false,
      });
      await ensureMonthPartition(db, month.startMs);
      const startedAt = performance.now();
      load.seconds.big = await loadMonth(db, 'big creator', {
        creatorId: bigId,
        linkIds: bigLinks.linkIds,
        monthStartMs: month.startMs,
        clicks: options.clicks,
        slot: SLOT.big,
      });
      if (options.other > 0) {
        load.seconds.other = await loadMonth(db, 'other creator', {
          creatorId: otherId,
          linkIds: otherLinks.linkIds,
          monthStartMs: month.startMs,
          clicks: options.other,
          slot: SLOT.other,
        });
      }
      load.seconds.vacuumAnalyze = await settle(db);
      load.seconds.total = seconds(performance.now() - startedAt);
      load.measuredAt = new Date().toISOString();
      loaded = options.base;
      await writeMarker(db, { ...shape, total: loaded, load });
      console.log(`bench: ${thousands(loaded)} clicks loaded in ${load.seconds.total}s`);
    } else {
      // The probe clicks of earlier runs go (the triggers take them out of the rollups too).
      await db.query('DELETE FROM clicks WHERE link_id = $1', [bigLinks.probeLinkId]);
    }

    const phases = [];
    if (loaded === options.base) {
      phases.push(
        await measure(db, {
          label: 'base',
          loaded,
          bench,
          month,
          runs: options.runs,
          openHours: options.openHours,
        }),
      );
    }
    if (options.total > loaded) {
      const fillStartedAt = performance.now();
      for (const segment of fillSegments(options)) {
        if (segment.loaded + segment.clicks <= loaded) continue;
        const fillerId = await creatorOf(db, EMAIL.filler(segment.filler), {
          withNetworkAccounts: false,
        });
        const monthStartMs = monthStartOf(month.startMs, segment.monthOffset);
        await ensureMonthPartition(db, monthStartMs);
        const took = await loadMonth(
          db,
          `filler ${segment.filler}, ${new Date(monthStartMs).toISOString().slice(0, 7)}`,
          {
            creatorId: fillerId,
            linkIds: fillerLinkIds(segment.filler),
            monthStartMs,
            clicks: segment.clicks,
            slot: SLOT.filler(segment.filler),
          },
        );
        loaded = segment.loaded + segment.clicks;
        load = {
          ...load,
          fill: { clicks: loaded - options.base, seconds: took + (load.fill?.seconds ?? 0) },
        };
        await writeMarker(db, { ...shape, total: loaded, load });
      }
      load.fill.vacuumAnalyzeSeconds = await settle(db);
      await writeMarker(db, { ...shape, total: loaded, load });
      console.log(
        `bench: the table filled to ${thousands(loaded)} clicks in ${seconds(performance.now() - fillStartedAt)}s`,
      );
    }
    if (options.total > options.base) {
      phases.push(
        await measure(db, {
          label: 'total',
          loaded,
          bench,
          month,
          runs: options.runs,
          openHours: options.openHours,
        }),
      );
    }

    const basePhase =
      phases.find((phase) => phase.label === 'base') ?? storedBasePhase(options, month);
    const targets = phases.flatMap((phase) =>
      phase.label === 'base'
        ? baseTargets(phase, options)
        : growthTargets(phase, basePhase, options),
    );
    for (const { heading, lines } of targets) {
      console.log(`bench: targets ${heading}:`);
      for (const { target, pass, detail } of lines) {
        console.log(`${pass ? 'PASS' : 'FAIL'}  ${target}: ${detail}`);
      }
    }
    const report = {
      measuredAt: new Date().toISOString(),
      machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, server pinned: ${hasTaskset}`,
      setup: {
        ...shape,
        total: options.total,
        base: options.base,
        runs: options.runs,
        openHours: options.openHours,
        reused: isReused,
      },
      load,
      phases: basePhase !== null && !phases.includes(basePhase) ? [basePhase, ...phases] : phases,
      targets,
      met: targets.every(({ lines }) => lines.every((line) => line.pass)),
    };
    fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
    fs.writeFileSync(RESULT_FILE, JSON.stringify(report, null, 2) + '\n');
    console.log(
      `bench: ${report.met ? 'every target met' : 'targets missed'}; ${path.relative(root, RESULT_FILE)} written`,
    );
  } finally {
    await db.end();
    server.kill('SIGTERM');
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
