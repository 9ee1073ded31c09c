#!/usr/bin/env node
'use strict';
/**
 * PostgreSQL's CPU per click of the click writer's insert, with the click rollups' triggers
 * and without (docs/analytics.md "Writer cost"). Runs ClickStreamConsumer.insert itself (the
 * consumer's one statement per pass) on synthetic stream entries, at the consumer's batch
 * sizes, in rounds alternating triggers on and off, and prints the medians: CPU of the
 * database backend that ran the statements (from /proc, so PostgreSQL must run on this
 * machine) and wall time, in microseconds per click. Clicks are stamped from now on, 5 ms
 * apart, as the edge stamps them; the hours they pass are settled into the creator rollups as
 * the app does it (ClickRollupSettler, on the same backend), and the deltas a round with the
 * triggers appends are folded into the link rollup at its end (ClickRollupCompactor's work);
 * those CPUs are reported per click written with the triggers on (`settleCpuUsPerClick`,
 * `compactCpuUsPerClick`), to add to their cost. A round's 40,000 clicks span 200 s of click
 * time, so the compaction finds few clicks per row: the bench's rate folds many more.
 *
 * WRITER_COST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/linkpilot_writer_cost)
 * is dropped and recreated, then migrated. WRITER_COST_SIZES (default 50,500,2000,8000),
 * WRITER_COST_CLICKS per round (default 40000), WRITER_COST_ROUNDS (default 3),
 * WRITER_COST_SHAPE: `bench` (200 creators of 5 links, as `npm run bench`) or `creator`
 * (one creator of 100 links, the issue's large creator).
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { Client } = require('pg');
const { ulid } = require('ulid');

const root = path.resolve(__dirname, '..');
const DB_URL =
  process.env.WRITER_COST_DATABASE_URL ??
  'postgresql://postgres@127.0.0.1:5432/linkpilot_writer_cost';
const SIZES = (process.env.WRITER_COST_SIZES ?? '50,500,2000,8000').split(',').map(Number);
const CLICKS = Number(process.env.WRITER_COST_CLICKS ?? 40_000);
const ROUNDS = Number(process.env.WRITER_COST_ROUNDS ?? 3);
const SHAPE = process.env.WRITER_COST_SHAPE ?? 'bench';
const HOUR_MS = 60 * 60 * 1000;

const { COUNTRIES } = require('../bench/visitor-countries');
const { resetDatabase: resetDatabaseAt } = require('../bench/bench-stores');
const DEVICES = ['desktop', 'mobile', 'mobile', 'tablet', 'desktop'];
const MERCHANTS = ['amazon', 'asos', 'nike', 'zalando', 'walmart', 'etsy', 'ebay', 'target'];
const NETWORKS = ['amazon_associates', 'awin', 'impact', 'cj'];
const REGION_OF = { DE: 'EU', FR: 'EU', BR: 'US', MX: 'US', AE: 'GB', ZA: 'GB', NG: 'GB' };

function links() {
  const [creators, perCreator] = SHAPE === 'creator' ? [1, 100] : [200, 5];
  return Array.from({ length: creators * perCreator }, (_, i) => ({
    creatorId: `01CREATOR${String(Math.floor(i / perCreator)).padStart(17, '0')}`,
    linkId: ulid(),
    merchantId: MERCHANTS[i % MERCHANTS.length],
    preset: ['default', 'link_in_bio', 'long_form'][i % 3],
  }));
}

/** A stream entry as the edge writes it (click-record-codec.ts field order). */
function entry(link, n, atMs) {
  const country = COUNTRIES[(n * 31) % COUNTRIES.length];
  const region = REGION_OF[country] ?? country;
  const outcome = n % 20 === 0 ? 'fallback' : n % 33 === 0 ? 'passthrough' : 'routed';
  const isPassthrough = outcome === 'passthrough';
  return JSON.stringify([
    ulid(atMs),
    new Date(atMs).toISOString(),
    link.linkId,
    link.creatorId,
    link.merchantId,
    isPassthrough ? null : region,
    isPassthrough ? null : NETWORKS[(link.merchantId.length + region.length) % NETWORKS.length],
    link.preset,
    outcome,
    isPassthrough ? 0 : Number((((n * 7919) % 3000) / 1000).toFixed(6)),
    isPassthrough ? 0 : Number((((n * 104729) % 11000) / 10000).toFixed(4)),
    false,
    false,
    country,
    DEVICES[(n * 17) % DEVICES.length],
    'live',
  ]);
}

function backendCpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks
}

/** The scratch database made afresh and migrated. */
async function resetDatabase() {
  await resetDatabaseAt(DB_URL);
  execFileSync(process.execPath, [path.join(root, 'bin/linkpilot.js'), 'db', 'migrate', '--json'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: DB_URL, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function main() {
  await resetDatabase();
  const { ClickStreamConsumer } = require(
    path.join(root, 'dist/src/analytics/click-stream.consumer'),
  );
  const { ClickWritesRepository } = require(
    path.join(root, 'dist/src/analytics/click-writes.repository'),
  );
  const { ClickRollupsRepository } = require(
    path.join(root, 'dist/src/analytics/click-rollups.repository'),
  );
  const { ClickRollupSettler } = require(
    path.join(root, 'dist/src/analytics/click-rollup-settler.service'),
  );
  const db = new Client({ connectionString: DB_URL });
  await db.connect();
  const month = new Date().toISOString().slice(0, 7);
  const next = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1));
  await db.query(
    `CREATE TABLE IF NOT EXISTS clicks_cost PARTITION OF clicks FOR VALUES FROM ('${month}-01') TO ('${next.toISOString().slice(0, 10)}')`,
  );
  const [{ pid }] = (await db.query('SELECT pg_backend_pid() AS pid')).rows;
  // The consumer's insert runs the writes repository's statement, here on this connection.
  const writer = new ClickStreamConsumer(
    {
      consumerEnabled: false,
      pollIntervalMs: 250,
      claimIdleMs: 30_000,
      rollupCompactIntervalMs: 10_000,
    },
    null,
    new ClickWritesRepository({ query: (sql, parameters) => db.query(sql, parameters) }),
  );
  // The settling of the app, through this connection (a DataSource's query and transaction).
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
  let atMs = Date.now();
  // The app's clock, as the settler sees it: the time of the next click to be written.
  let nowMs = atMs;
  const rollups = new ClickRollupsRepository(dataSource);
  const settler = new ClickRollupSettler({ consumerEnabled: true }, rollups, {
    nowMs: () => nowMs,
  });
  const settle = { cpuSeconds: 0, clicks: 0 };
  const compaction = { cpuSeconds: 0 };
  async function measureCompaction(work) {
    const cpuBefore = backendCpuSeconds(pid);
    await work();
    compaction.cpuSeconds += backendCpuSeconds(pid) - cpuBefore;
  }
  async function measureSettling(work) {
    const cpuBefore = backendCpuSeconds(pid);
    await work();
    settle.cpuSeconds += backendCpuSeconds(pid) - cpuBefore;
  }
  const allLinks = links();
  let n = 0;
  const results = [];
  for (const size of SIZES) {
    const samples = { off: [], on: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of round % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
        await db.query(
          `ALTER TABLE clicks ${mode === 'on' ? 'ENABLE' : 'DISABLE'} TRIGGER click_rollups_on_insert`,
        );
        const batches = Array.from({ length: Math.ceil(CLICKS / size) }, () =>
          Array.from({ length: size }, () => {
            n++;
            atMs += 5;
            return { id: `${n}-0`, payload: entry(allLinks[(n * 7) % allLinks.length], n, atMs) };
          }),
        );
        // The hours due by now (the round's first click) are settled before the round.
        nowMs = atMs - batches.length * size * 5;
        if (mode === 'on') await measureSettling(() => settler.settleDue());
        const cpuBefore = backendCpuSeconds(pid);
        const startedAt = process.hrtime.bigint();
        for (const batch of batches) await writer.insert(batch);
        const wallUs = Number(process.hrtime.bigint() - startedAt) / 1e3;
        const cpuAfter = backendCpuSeconds(pid);
        // The round's deltas folded into the link rollup, as the compactor does every
        // CLICK_ROLLUP_COMPACT_INTERVAL_MS, its CPU reported apart (`compactCpuUsPerClick`).
        if (mode === 'on') await measureCompaction(() => rollups.compactLinkDeltas());
        const clicks = batches.length * size;
        if (mode === 'on') settle.clicks += clicks;
        samples[mode].push({
          cpuUs: ((cpuAfter - cpuBefore) * 1e6) / clicks,
          wallUs: wallUs / clicks,
        });
      }
    }
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const row = { shape: SHAPE, batch: size };
    for (const mode of ['off', 'on']) {
      row[`cpuUs_${mode}`] = Number(median(samples[mode].map((s) => s.cpuUs)).toFixed(1));
      row[`wallUs_${mode}`] = Number(median(samples[mode].map((s) => s.wallUs)).toFixed(1));
    }
    row.cpuUsAdded = Number((row.cpuUs_on - row.cpuUs_off).toFixed(1));
    results.push(row);
    console.log(JSON.stringify(row));
  }
  // Every hour written is settled in the end, so the settling's CPU covers every click on.
  await measureSettling(() => settler.settleUntil(new Date(Math.ceil(atMs / HOUR_MS) * HOUR_MS)));
  console.log(
    JSON.stringify({
      settleCpuUsPerClick: Number(((settle.cpuSeconds * 1e6) / settle.clicks).toFixed(2)),
      compactCpuUsPerClick: Number(((compaction.cpuSeconds * 1e6) / settle.clicks).toFixed(2)),
    }),
  );
  const [rows] = (
    await db.query(`SELECT (SELECT count(*) FROM clicks)::int AS clicks,
      (SELECT count(*) FROM click_rollup_links)::int AS links,
      (SELECT count(*) FROM click_rollup_route_days)::int AS route_days,
      (SELECT count(*) FROM click_rollup_route_hours)::int AS route_hours,
      (SELECT count(*) FROM click_rollup_country_hours)::int AS country_hours,
      (SELECT count(*) FROM click_rollup_device_hours)::int AS device_hours,
      (SELECT count(*) FROM click_rollup_region_days)::int AS region_days,
      (SELECT count(*) FROM click_rollup_merchant_region_days)::int AS merchant_region_days`)
  ).rows;
  console.log(JSON.stringify({ storedAfterRoundsWithTriggers: rows }));
  await db.end();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
