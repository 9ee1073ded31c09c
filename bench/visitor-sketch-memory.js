#!/usr/bin/env node
'use strict';
/**
 * What unique-visitor sketches cost in Redis and in PostgreSQL (docs/analytics.md "Unique
 * visitors", figures in docs/benchmarks.md), and what the sketch mover and the reads cost:
 *
 * 1. Redis: `MEMORY USAGE` of a link-day key after PFADD of 1, 10, 100, 1,000 and 10,000
 *    visitors (22-character hashes, as the edge makes them), on a redis-server of its own
 *    (spare port, defaults: hll-sparse-max-bytes 3000), averaged over SKETCH_BENCH_KEYS keys
 *    (default 1,000), plus what a key costs the instance beyond it (its hash-table entries in
 *    the keyspace and the expiries: `used_memory` growth over 100,000 keys).
 * 2. PostgreSQL: the same sketches stored as the mover stores them (registers serialised by
 *    src/analytics/hyperloglog.ts) in `visitor_sketches` of a scratch database it recreates
 *    migrates and seeds (SKETCH_BENCH_DATABASE_URL, default
 *    postgresql://postgres@127.0.0.1:5432/linkpilot_sketch_bench): table, TOAST and index
 *    bytes per row, after VACUUM.
 * 3. The arithmetic for 1,000,000 links clicked daily for 30 days, at each size: Redis before
 *    (every day's keys kept, 400-day TTL) and after (today's and yesterday's only), and
 *    PostgreSQL after.
 * 4. The mover: SKETCH_BENCH_MOVE_LINKS link-days (100 links per creator, 10 visitors each)
 *    moved by VisitorSketchMover itself, wall time per sketch.
 * 5. The reads: parse, merge and count of 366 dense sketches (a busy creator's year), and
 *    of 8 (the days still in Redis), in this process.
 *
 * Needs `npm run build` (it loads dist/) and redis-server on the PATH.
 */
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const net = require('node:net');
const { spawn, execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const Redis = require('ioredis');
const { Client } = require('pg');
const { ulid } = require('ulid');

const root = path.resolve(__dirname, '..');
const DB_URL =
  process.env.SKETCH_BENCH_DATABASE_URL ??
  'postgresql://postgres@127.0.0.1:5432/linkpilot_sketch_bench';
const SIZES = (process.env.SKETCH_BENCH_SIZES ?? '1,10,100,1000,10000').split(',').map(Number);
const KEYS = Number(process.env.SKETCH_BENCH_KEYS ?? 1000);
const MOVE_LINKS = Number(process.env.SKETCH_BENCH_MOVE_LINKS ?? 20_000);
const OVERHEAD_KEYS = 100_000;
const LINKS = 1_000_000;
const DAYS = 30;

const dist = (module) => require(path.join(root, 'dist/src', module));
const { serialize, parseSerialized, mergeSerialized, emptyRegisters, countOf, addToRegisters } =
  dist('analytics/hyperloglog');

const visitorHash = () => randomBytes(17).toString('base64url').slice(0, 22);

function sparePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startRedis() {
  const port = await sparePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sketch-bench-redis-'));
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  const accepts = () =>
    new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => socket.end(() => resolve(true)));
      socket.once('error', () => resolve(false));
    });
  for (let attempt = 0; !(await accepts()); attempt++) {
    if (attempt > 200) throw new Error(`redis-server on port ${port} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const redis = new Redis({ port, host: '127.0.0.1' });
  return {
    redis,
    url: `redis://127.0.0.1:${port}/0`,
    stop: async () => {
      await redis.quit();
      child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function resetDatabase() {
  const admin = new Client({ connectionString: DB_URL.replace(/\/[^/?]+(\?|$)/, '/postgres$1') });
  await admin.connect();
  const name = new URL(DB_URL).pathname.slice(1);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  for (const task of ['migrate', 'seed']) {
    execFileSync(process.execPath, [path.join(root, 'bin/linkpilot.js'), 'db', task, '--json'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: DB_URL, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
}

/** 1: MEMORY USAGE per key, and the values read back (for 2). */
async function redisBytes(redis, visitors) {
  const tag = '{e3}';
  let memory = 0;
  let valueBytes = 0;
  const values = [];
  for (let k = 0; k < KEYS; k++) {
    const key = `uv:${tag}:l:${ulid()}:2026-11-26`;
    for (let at = 0; at < visitors; at += 1000) {
      const batch = Array.from({ length: Math.min(1000, visitors - at) }, visitorHash);
      await redis.pfadd(key, ...batch);
    }
    await redis.expire(key, 7 * 24 * 3600);
    memory += await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    const value = await redis.getBuffer(key);
    valueBytes += value.length;
    values.push(value);
  }
  await redis.flushdb();
  return { memory: memory / KEYS, valueBytes: valueBytes / KEYS, values };
}

/**
 * What a key costs the instance beyond its MEMORY USAGE: its entries in the keyspace's and
 * the expiries' hash tables (buckets included), from `used_memory` before and after
 * OVERHEAD_KEYS one-visitor keys with a TTL, as the sketches have.
 */
async function perKeyOverhead(redis) {
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))[1]);
  await redis.flushdb();
  const before = await usedMemory();
  const keys = Array.from({ length: OVERHEAD_KEYS }, () => `uv:{e3}:l:${ulid()}:2026-11-26`);
  for (let at = 0; at < keys.length; at += 1000) {
    const pipeline = redis.pipeline();
    for (const key of keys.slice(at, at + 1000)) {
      pipeline.pfadd(key, visitorHash()).expire(key, 7 * 24 * 3600);
    }
    await pipeline.exec();
  }
  const grown = ((await usedMemory()) - before) / keys.length;
  let usage = 0;
  for (const key of keys.slice(0, 1000)) {
    usage += await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
  }
  await redis.flushdb();
  return grown - usage / 1000;
}

/** 2: the same sketches as the mover stores them; bytes per row. */
async function postgresBytes(db, values) {
  await db.query('TRUNCATE visitor_sketches');
  const rows = values.map((value) => {
    const registers = parseSerialized(value);
    return { registers: serialize(registers), visitors: countOf(registers) };
  });
  // Many rows per sketch, so the per-row figure is the table's, not a page's rounding.
  const copies = Math.max(1, Math.ceil(20_000 / rows.length));
  for (let copy = 0; copy < copies; copy++) {
    await db.query(
      `INSERT INTO visitor_sketches (creator_id, environment, link_id, day, visitors, registers)
       SELECT $1, 'live', link_id, '2026-11-26', visitors, registers
         FROM unnest($2::varchar[], $3::int[], $4::bytea[]) AS s (link_id, visitors, registers)`,
      [
        '01CREATOR' + String(copy).padStart(17, '0'),
        rows.map(() => ulid()),
        rows.map((row) => row.visitors),
        rows.map((row) => row.registers),
      ],
    );
  }
  await db.query('VACUUM ANALYZE visitor_sketches');
  const [{ bytes, count }] = (
    await db.query(
      `SELECT pg_total_relation_size('visitor_sketches') AS bytes, count(*)::int AS count
         FROM visitor_sketches`,
    )
  ).rows;
  return {
    perRow: Number(bytes) / count,
    registerBytes: rows.reduce((sum, row) => sum + row.registers.length, 0) / rows.length,
  };
}

/** 4: the mover on one day of MOVE_LINKS link-days. */
async function moveCost(redisUrl) {
  const { DataSource } = require('typeorm');
  const { buildDataSourceOptions } = dist('database/data-source-options');
  const { RedisKvStore } = dist('kv/redis-kv-store');
  const { VisitorSketchMover } = dist('analytics/visitor-sketch-mover');
  const { VisitorSketchesRepository } = dist('analytics/visitor-sketches.repository');
  const { AdvisoryLocks } = dist('database/advisory-lock');
  const { uniqueVisitorKeys } = dist('analytics/unique-visitors');
  const db = new Client({ connectionString: DB_URL });
  await db.connect();
  const day = '2026-11-24';
  const perCreator = 100;
  const creators = Math.ceil(MOVE_LINKS / perCreator);
  await db.query('TRUNCATE visitor_sketches, visitor_sketch_moves');
  await db.query(
    `INSERT INTO visitor_sketch_moves (day, sketches)
     SELECT d::date, 0 FROM generate_series('2025-10-01'::date, '2026-11-23'::date, interval '1 day') d`,
  );
  const redis = new Redis(redisUrl);
  for (let c = 0; c < creators; c++) {
    const creatorId = ulid();
    await db.query(
      `INSERT INTO creators (id, email, display_name, plan_id) VALUES ($1, $2, 'bench', 'publisher')`,
      [creatorId, `${creatorId.toLowerCase()}@bench.invalid`],
    );
    await db.query(
      `INSERT INTO click_rollup_route_days (creator_id, environment, day, merchant_id, network_id, preset, outcome, clicks, confidence_sum, epc_sum)
       VALUES ($1, 'live', $2, 'amazon', 'amazon_associates', 'default', 'routed', $3, 0, 0)`,
      [creatorId, day, perCreator * 10],
    );
    const links = Array.from({ length: perCreator }, () => ulid());
    await db.query(
      `INSERT INTO click_rollup_links (creator_id, environment, link_id, hour, merchant_id, network_id, preset, outcome, region, visitor_country, device_class, clicks, confidence_sum, epc_sum)
       SELECT $1, 'live', link_id, $2::timestamptz, 'amazon', 'amazon_associates', 'default', 'routed', 'US', 'US', 'desktop', 10, 0, 0
         FROM unnest($3::varchar[]) AS link_id`,
      [creatorId, `${day}T12:00:00Z`, links],
    );
    const pipeline = redis.pipeline();
    for (const linkId of links) {
      const keys = uniqueVisitorKeys(creatorId, 'live', linkId, day);
      const visitors = Array.from({ length: 10 }, visitorHash);
      pipeline.pfadd(keys.link, ...visitors).pfadd(keys.creator, ...visitors);
    }
    await pipeline.exec();
  }
  await db.end();
  const dataSource = await new DataSource(buildDataSourceOptions(DB_URL, 4, [])).initialize();
  const store = new RedisKvStore(new Redis(redisUrl));
  const clock = { nowMs: () => Date.parse('2026-11-26T00:07:00Z') };
  const mover = new VisitorSketchMover(
    new AdvisoryLocks(dataSource, { poolSize: 4 }),
    new VisitorSketchesRepository(dataSource),
    store,
    clock,
  );
  const startedAt = performance.now();
  const report = await mover.moveDueDays();
  const elapsedMs = performance.now() - startedAt;
  const left = await redis.dbsize();
  await store.close();
  await redis.quit();
  await dataSource.destroy();
  return { report, elapsedMs, left };
}

/** 5: what a read does in this process with the sketches it fetched. */
function readCost() {
  const dense = Array.from({ length: 366 }, () => {
    const registers = emptyRegisters();
    for (let i = 0; i < 20_000; i++) addToRegisters(registers, visitorHash());
    return serialize(registers);
  });
  const time = (sketches, rounds) => {
    const samples = [];
    for (let round = 0; round < rounds; round++) {
      const startedAt = performance.now();
      const registers = emptyRegisters();
      for (const sketch of sketches) mergeSerialized(registers, sketch);
      countOf(registers);
      samples.push(performance.now() - startedAt);
    }
    samples.sort((a, b) => a - b);
    return samples[Math.floor(samples.length / 2)];
  };
  return {
    denseBytes: dense[0].length,
    year: time(dense, 15),
    week: time(dense.slice(0, 8), 200),
  };
}

const mb = (bytes) => `${(bytes / 1e6).toLocaleString('en-US', { maximumFractionDigits: 0 })} MB`;
const gb = (bytes) => `${(bytes / 1e9).toLocaleString('en-US', { maximumFractionDigits: 1 })} GB`;
const size = (bytes) => (bytes >= 1e9 ? gb(bytes) : mb(bytes));

async function main() {
  await resetDatabase();
  const redis = await startRedis();
  const db = new Client({ connectionString: DB_URL });
  await db.connect();
  const overhead = await perKeyOverhead(redis.redis);
  const rows = [];
  for (const visitors of SIZES) {
    const inRedis = await redisBytes(redis.redis, visitors);
    inRedis.instance = inRedis.memory + overhead;
    const inPostgres = await postgresBytes(db, inRedis.values);
    rows.push({ visitors, ...inRedis, ...inPostgres });
  }
  await db.end();
  console.log(`Per link-day (mean of ${KEYS} keys; visitors are 22-character hashes):\n`);
  console.log(
    '| Visitors | Redis value | Redis MEMORY USAGE | Redis used_memory per key | PostgreSQL registers | PostgreSQL per row (table, TOAST, index) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(
      `| ${row.visitors.toLocaleString('en-US')} | ${Math.round(row.valueBytes)} B | ${Math.round(row.memory)} B | ${Math.round(row.instance)} B | ${Math.round(row.registerBytes)} B | ${Math.round(row.perRow)} B |`,
    );
  }
  console.log(
    `\nused_memory per key = MEMORY USAGE + ${Math.round(overhead)} B (the keyspace's and the ` +
      `expiries' hash-table entries, from ${OVERHEAD_KEYS.toLocaleString('en-US')} keys)`,
  );
  console.log(`\n${LINKS.toLocaleString('en-US')} links clicked daily for ${DAYS} days:\n`);
  console.log(
    '| Visitors per link-day | Redis before (30 days kept) | Redis after (2 days) | PostgreSQL after (28 days moved) |',
  );
  console.log('|---|---|---|---|');
  for (const row of rows) {
    console.log(
      `| ${row.visitors.toLocaleString('en-US')} | ${size(LINKS * DAYS * row.instance)} | ${size(LINKS * 2 * row.instance)} | ${size(LINKS * (DAYS - 2) * row.perRow)} |`,
    );
  }
  const moved = await moveCost(redis.url);
  console.log(
    `\nMover: ${moved.report.sketches.toLocaleString('en-US')} sketches of ${moved.report.days.length} day(s) in ` +
      `${(moved.elapsedMs / 1000).toFixed(1)} s (${((moved.elapsedMs * 1000) / moved.report.sketches).toFixed(0)} µs a sketch), ` +
      `${moved.report.deletedKeys.toLocaleString('en-US')} keys deleted, ${moved.left} left in Redis`,
  );
  const reads = readCost();
  console.log(
    `Reads: merge and count of 366 dense sketches (${reads.denseBytes} B each) ${reads.year.toFixed(1)} ms, ` +
      `of 8 ${reads.week.toFixed(2)} ms (medians)`,
  );
  await redis.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
