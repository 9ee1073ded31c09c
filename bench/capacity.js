#!/usr/bin/env node
'use strict';
/**
 * `npm run capacity`: the per-unit figures of docs/scaling.md's capacity model, measured on
 * the built server (dist/) against a scratch database and a Redis of its own:
 *
 * - per counted click: Redis commands (by command, from INFO commandstats), bytes Redis
 *   received and sent (INFO stats), AOF bytes written (appendfsync everysec, as production
 *   runs Redis), memory while the clicks wait in the streams and once the click worker has
 *   trimmed them (INFO memory, and MEMORY USAGE by key kind), CPU of the server, of Redis, of
 *   the click worker and of PostgreSQL's backends (from /proc), and PostgreSQL bytes: the raw
 *   row with its indexes, and each rollup's bytes per row;
 * - per API request, by kind: CPU of the server and of PostgreSQL's backends;
 * - per link: Redis bytes of a cached link record, PostgreSQL bytes of the links table.
 *
 * PostgreSQL and Redis are servers of this run's own on spare ports, with their files in
 * temporary directories, so their CPU, WAL and INFO counters are this run's alone on a shared
 * machine: PostgreSQL by `initdb` from Debian's binaries (/usr/lib/postgresql/<newest>/bin, or
 * CAPACITY_PG_BINDIR), as the `postgres` OS user when run as root, with its default settings
 * (fsync and synchronous commits on); its CPU is every process of that cluster, reaped ones
 * included (/proc). Redis with AOF everysec, as production runs it. CAPACITY_CLICKS (default
 * 40,000 per pass) and CAPACITY_API_REQUESTS per kind (default 1,000). Writes
 * bench/results/capacity.json and prints it.
 */
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: delay } = require('node:timers/promises');
const { Client } = require('pg');
const Redis = require('ioredis');
const { BENCH_WEBHOOK_SECRET_KEY } = require('./bench-stores');

require('../bin/ensure-built').ensureBuilt();
const root = path.resolve(__dirname, '..');
const { generateApiKey, hashApiKey, displayPrefixOf } = require('../dist/src/auth/api-key-format');
const { NETWORK_IDS } = require('../dist/src/networks/network-ids');
const { CLICK_STREAMS } = require('../dist/src/analytics/click-streams');
const { ulid } = require('ulid');

const CLICKS = Number(process.env.CAPACITY_CLICKS ?? 40_000);
const API_REQUESTS = Number(process.env.CAPACITY_API_REQUESTS ?? 1_000);
const CREATORS = 200;
const LINKS_PER_CREATOR = 5;
const CONNECTIONS = 16;
const CLIENT_ADDRESSES = 50_000;
const { COUNTRIES } = require('./visitor-countries');
const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
];
const PRODUCT_URLS = [
  'https://www.amazon.com/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12/ref=sr_1_3',
  'https://www.amazon.co.uk/dp/B09V3HN1KC',
  'https://www.asos.com/nike/nike-air-max-90-trainers/prd/204812345',
  'https://www.zalando.de/nike-sportswear-air-max-sneaker-ni112o0f8-q11.html',
  'https://www.walmart.com/ip/Apple-AirPods-Pro/520468661',
];

const log = (message) => process.stderr.write(`capacity: ${message}\n`);

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) of these processes together, from /proc. */
function cpuSeconds(pids) {
  let total = 0;
  for (const pid of pids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      /* exited */
    }
  }
  return total;
}

function sparePort() {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function postgresBinDir() {
  if (process.env.CAPACITY_PG_BINDIR) return process.env.CAPACITY_PG_BINDIR;
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((version) => fs.existsSync(path.join(base, version, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error('No PostgreSQL server binaries in /usr/lib/postgresql');
  return path.join(base, versions[0], 'bin');
}

/** A PostgreSQL cluster of this run's own: initdb, one database, default settings. */
async function startPostgres() {
  const binDir = postgresBinDir();
  const isRoot = process.getuid?.() === 0;
  const run = (binary, args) =>
    isRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(binDir, binary), ...args], {
          stdio: 'ignore',
        })
      : execFileSync(path.join(binDir, binary), args, { stdio: 'ignore' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-capacity-pg-'));
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    fs.chownSync(dir, uid, gid);
  }
  const dataDir = path.join(dir, 'data');
  const port = await sparePort();
  run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C']);
  run('pg_ctl', [
    ...['-D', dataDir, '-l', path.join(dir, 'server.log'), '-w', 'start'],
    ...['-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`],
  ]);
  const url = `postgresql://postgres@127.0.0.1:${port}/linkpilot`;
  const admin = new Client({
    connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres`,
  });
  await admin.connect();
  await admin.query('CREATE DATABASE linkpilot');
  await admin.end();
  const postmaster = Number(
    fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  return {
    url,
    /** CPU seconds of the whole cluster: the postmaster, its live children, and reaped ones. */
    cpu: () => {
      const fields = fs.readFileSync(`/proc/${postmaster}/stat`, 'utf8').split(') ')[1].split(' ');
      // utime, stime, cutime, cstime (children waited for: backends that have exited).
      const own = fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / CLOCK_TICKS;
      let children = [];
      try {
        children = execFileSync('pgrep', ['-P', String(postmaster)])
          .toString()
          .split('\n')
          .filter(Boolean)
          .map(Number);
      } catch {
        /* none */
      }
      return own + cpuSeconds(children);
    },
    stop: () => {
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A redis-server of this run's own, with AOF everysec as production runs it. */
async function startRedis() {
  const port = await sparePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-capacity-redis-'));
  const child = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir],
      ...['--appendonly', 'yes', '--appendfsync', 'everysec'],
      // No rewrite during the run: the AOF's growth is what the clicks wrote.
      ...['--auto-aof-rewrite-percentage', '0'],
    ],
    { stdio: 'ignore' },
  );
  const redis = new Redis({ port, lazyConnect: true });
  for (let i = 0; ; i++) {
    try {
      await redis.connect();
      break;
    } catch {
      if (i > 50) throw new Error('redis-server did not start');
      await delay(100);
    }
  }
  return {
    url: `redis://127.0.0.1:${port}/0`,
    pid: child.pid,
    redis,
    aofBytes: () =>
      fs
        .readdirSync(path.join(dir, 'appendonlydir'))
        .filter((file) => file.includes('.incr.'))
        .reduce((sum, file) => sum + fs.statSync(path.join(dir, 'appendonlydir', file)).size, 0),
    stop: async () => {
      redis.disconnect();
      child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** INFO's `field:value` lines of one section as numbers (and strings where not numbers). */
async function info(redis, section) {
  const fields = {};
  for (const line of (await redis.info(section)).split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1);
  }
  return fields;
}

/** Calls per command since start (INFO commandstats). */
async function commandCalls(redis) {
  const calls = {};
  for (const [name, value] of Object.entries(await info(redis, 'commandstats'))) {
    calls[name.replace('cmdstat_', '')] = Number(/calls=(\d+)/.exec(value)[1]);
  }
  return calls;
}

async function redisSnapshot(store) {
  const stats = await info(store.redis, 'stats');
  const memory = await info(store.redis, 'memory');
  return {
    calls: await commandCalls(store.redis),
    netIn: Number(stats.total_net_input_bytes),
    netOut: Number(stats.total_net_output_bytes),
    usedMemory: Number(memory.used_memory),
    aofBytes: store.aofBytes(),
    cpu: cpuSeconds([store.pid]),
  };
}

/** Bytes by key kind (the key up to its first `:` or `{`), counted with MEMORY USAGE. */
async function memoryByKeyKind(redis) {
  const kinds = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const kind = key.split(/[:{]/)[0];
      const bytes = Number(await redis.memory('USAGE', key, 'SAMPLES', 0));
      kinds[kind] ??= { keys: 0, bytes: 0 };
      kinds[kind].keys++;
      kinds[kind].bytes += bytes;
    }
  } while (cursor !== '0');
  return kinds;
}

function runCli(args, env) {
  execFileSync(process.execPath, [path.join(root, 'bin/linkpilot.js'), ...args, '--json'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function seedCreators(db) {
  const creators = [];
  for (let i = 0; i < CREATORS; i++) {
    const creatorId = ulid();
    const apiKey = generateApiKey('live');
    await db.query(
      `INSERT INTO creators (id, email, display_name, plan_id) VALUES ($1, $2, $3, 'enterprise')`,
      [creatorId, `capacity-${i}@example.com`, `Capacity ${i}`],
    );
    await db.query(
      `INSERT INTO api_keys (id, creator_id, key_hash, display_prefix, environment)
       VALUES ($1, $2, $3, $4, 'live')`,
      [ulid(), creatorId, hashApiKey(apiKey), displayPrefixOf(apiKey)],
    );
    for (const network of NETWORK_IDS) {
      await db.query(
        `INSERT INTO network_accounts (creator_id, network_id, affiliate_id) VALUES ($1, $2, $3)`,
        [creatorId, network, `capacity${i}`],
      );
    }
    creators.push({ creatorId, apiKey, linkIds: [] });
  }
  return creators;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function request(port, method, requestPath, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: requestPath,
        agent,
        headers: {
          ...headers,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: response.statusCode, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** `count` calls of `make(n)`, CONNECTIONS at a time; answers the statuses seen. */
async function drive(count, make) {
  const statuses = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) {
        const { status } = await make(next++);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

/** SIGTERM, then SIGKILL if it has not exited within 15 s. */
async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function walPosition(db) {
  return (await db.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn;
}

async function walBytesSince(db, lsn) {
  const { rows } = await db.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes', [
    lsn,
  ]);
  return Number(rows[0].bytes);
}

/** MEMORY USAGE of one HyperLogLog after `counts` distinct visitors (the unique-visitor keys). */
async function hyperLogLogBytes(redis, counts) {
  const sizes = {};
  let added = 0;
  for (const count of counts) {
    const batch = [];
    while (added < count) batch.push(`visitor-${added++}`);
    for (let i = 0; i < batch.length; i += 1000) {
      await redis.pfadd('capacity:hll', ...batch.slice(i, i + 1000));
    }
    sizes[count] = Number(await redis.memory('USAGE', 'capacity:hll'));
  }
  await redis.del('capacity:hll');
  return sizes;
}

async function streamEntries(redis) {
  let entries = 0;
  for (const stream of CLICK_STREAMS) entries += await redis.xlen(stream);
  return entries;
}

const perUnit = (value, units, digits = 1) => Number((value / units).toFixed(digits));

async function main() {
  const postgres = await startPostgres();
  const store = await startRedis();
  const port = await sparePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-capacity-'));
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: postgres.url,
    REDIS_URL: store.url,
    REDIS_CLUSTER_NODES: '',
    DATA_DIR: dataDir,
    WEBHOOK_SECRET_KEY: BENCH_WEBHOOK_SECRET_KEY,
    CLICK_CONSUMER_ENABLED: 'false',
    PROBES_ENABLED: 'false',
    FX_PRIMARY_URL: 'http://127.0.0.1:9/fx',
    FX_FALLBACK_URL: 'http://127.0.0.1:9/fx',
  };
  runCli(['db', 'migrate'], env);
  runCli(['db', 'seed'], env);
  const db = new Client({ connectionString: postgres.url });
  await db.connect();
  const creators = await seedCreators(db);
  const server = spawn(process.execPath, [path.join(root, 'dist/main.js')], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let worker = null;
  try {
    for (let i = 0; ; i++) {
      const ready = await request(port, 'GET', '/readyz').catch(() => ({ status: 0 }));
      if (ready.status === 200) break;
      if (i > 150) throw new Error('the server did not start');
      await delay(200);
    }
    for (const [i, creator] of creators.entries()) {
      const answer = await request(
        port,
        'POST',
        '/v1/links/bulk',
        { authorization: `Bearer ${creator.apiKey}` },
        {
          links: Array.from({ length: LINKS_PER_CREATOR }, (_, j) => {
            const url = PRODUCT_URLS[(i + j) % PRODUCT_URLS.length];
            return { originalUrl: `${url}${url.includes('?') ? '&' : '?'}v=${i}-${j}` };
          }),
        },
      );
      if (answer.status !== 207) throw new Error(`bulk create: ${answer.text}`);
      creator.linkIds = JSON.parse(answer.text).data.created.map((link) => link.linkId);
    }
    const links = creators.flatMap((creator) => creator.linkIds);
    const click = (n) =>
      request(port, 'GET', `/r/${links[(n * 7919) % links.length]}`, {
        'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
        'cf-ipcountry': COUNTRIES[(n * 31) % COUNTRIES.length],
        'user-agent': USER_AGENTS[(n * 17) % USER_AGENTS.length],
      });

    // Warm: every link record and creator profile in process, the scripts loaded.
    log(`${links.length} links of ${CREATORS} creators; warming`);
    await drive(4_000, (n) => click(CLIENT_ADDRESSES + n));
    const warmedStreams = await streamEntries(store.redis);

    // Clicks: the edge's side.
    const before = await redisSnapshot(store);
    const serverBefore = cpuSeconds([server.pid]);
    const clickStatuses = await drive(CLICKS, (n) => click(n % CLIENT_ADDRESSES));
    await delay(1500); // the AOF's everysec write, and INFO's counters, catch up
    const after = await redisSnapshot(store);
    const serverCpu = cpuSeconds([server.pid]) - serverBefore;
    const counted = (await streamEntries(store.redis)) - warmedStreams;
    log(`${CLICKS} clicks: ${JSON.stringify(clickStatuses)}, ${counted} in the streams`);
    const commands = {};
    for (const [name, calls] of Object.entries(after.calls)) {
      const delta = calls - (before.calls[name] ?? 0);
      if (delta > 0) commands[name] = perUnit(delta, counted, 3);
    }
    const waitingMemory = await memoryByKeyKind(store.redis);

    // The click worker drains them into PostgreSQL (its start-up is no click's cost).
    worker = spawn(process.execPath, [path.join(root, 'bin/linkpilot.js'), 'clicks', 'consume'], {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const untilDrained = async (expectedRows) => {
      const startedAt = Date.now();
      while (Number((await db.query('SELECT count(*) FROM clicks')).rows[0].count) < expectedRows) {
        if (Date.now() - startedAt > 300_000) throw new Error('the click worker did not drain');
        await delay(250);
      }
    };
    await untilDrained(counted + warmedStreams);
    await delay(2000); // acknowledged entries trimmed
    const heldMemory = await memoryByKeyKind(store.redis);
    const redisHeld = await redisSnapshot(store);

    // The same clicks again with the worker running: the write path's cost per click.
    const walFrom = await walPosition(db);
    const writeBefore = {
      redis: await redisSnapshot(store),
      server: cpuSeconds([server.pid]),
      worker: cpuSeconds([worker.pid]),
      postgres: postgres.cpu(),
    };
    const rowsBefore = Number((await db.query('SELECT count(*) FROM clicks')).rows[0].count);
    await drive(CLICKS, (n) => click(n % CLIENT_ADDRESSES));
    await untilDrained(rowsBefore + CLICKS);
    await delay(1500);
    const written =
      Number((await db.query('SELECT count(*) FROM clicks')).rows[0].count) - rowsBefore;
    const writeAfter = {
      redis: await redisSnapshot(store),
      server: cpuSeconds([server.pid]),
      worker: cpuSeconds([worker.pid]),
      postgres: postgres.cpu(),
    };
    const walBytes = await walBytesSince(db, walFrom);
    // Per click with the worker running, less the edge's own (first pass): the writer's.
    const writeCommands = {};
    for (const [name, calls] of Object.entries(writeAfter.redis.calls)) {
      const all = perUnit(calls - (writeBefore.redis.calls[name] ?? 0), written, 3);
      const writer = Number((all - (commands[name] ?? 0)).toFixed(3));
      if (writer > 0) writeCommands[name] = writer;
    }
    log(`${written} clicks written with the worker running`);

    await db.query('VACUUM ANALYZE');
    const { rows: rawRows } = await db.query(
      `SELECT sum(pg_total_relation_size(inhrelid))::bigint AS bytes,
              sum(pg_relation_size(inhrelid))::bigint AS heap
         FROM pg_inherits
        WHERE inhparent = 'clicks'::regclass`,
    );
    const clickRows = Number((await db.query('SELECT count(*) FROM clicks')).rows[0].count);
    const rollups = {};
    for (const table of [
      'click_rollup_links',
      'click_rollup_route_days',
      'click_rollup_route_hours',
      'click_rollup_country_hours',
      'click_rollup_device_hours',
      'click_rollup_region_days',
      'click_rollup_merchant_region_days',
    ]) {
      const { rows } = await db.query(
        `SELECT count(*)::bigint AS rows, pg_total_relation_size($1::regclass)::bigint AS bytes
           FROM ${table}`,
        [table],
      );
      rollups[table] = {
        rows: Number(rows[0].rows),
        bytesPerRow: perUnit(Number(rows[0].bytes), Number(rows[0].rows), 0),
      };
    }

    // API requests, by kind: each key stays far under its 600 a minute.
    const key = (n) => creators[n % creators.length];
    const auth = (creator) => ({ authorization: `Bearer ${creator.apiKey}` });
    const created = [];
    const kinds = {
      'GET /v1/links/:id': (n) =>
        request(port, 'GET', `/v1/links/${key(n).linkIds[n % LINKS_PER_CREATOR]}`, auth(key(n))),
      'GET /v1/links': (n) => request(port, 'GET', '/v1/links?limit=20', auth(key(n))),
      'POST /v1/links': async (n) => {
        const answer = await request(port, 'POST', '/v1/links', auth(key(n)), {
          originalUrl: `https://www.amazon.com/dp/B0CAPAC${String(n % 1000).padStart(3, '0')}?n=${n}`,
        });
        if (answer.status === 201)
          created.push({ creator: key(n), id: JSON.parse(answer.text).data.link.linkId });
        return answer;
      },
      'PATCH /v1/links/:id': (n) =>
        request(port, 'PATCH', `/v1/links/${key(n).linkIds[n % LINKS_PER_CREATOR]}`, auth(key(n)), {
          utmOverride: { utm_campaign: `capacity-${n}` },
        }),
      'GET /v1/account': (n) => request(port, 'GET', '/v1/account', auth(key(n))),
      'GET /v1/analytics/summary': (n) =>
        request(port, 'GET', '/v1/analytics/summary', auth(key(n))),
      'GET /v1/analytics/timeseries': (n) =>
        request(port, 'GET', '/v1/analytics/timeseries', auth(key(n))),
      'GET /v1/analytics/clicks': (n) =>
        request(port, 'GET', '/v1/analytics/clicks?limit=20', auth(key(n))),
    };
    const api = {};
    for (const [kind, make] of Object.entries(kinds)) {
      await drive(40, make); // warm this route
      const serverFrom = cpuSeconds([server.pid]);
      const pgFrom = postgres.cpu();
      const redisFrom = cpuSeconds([store.pid]);
      const statuses = await drive(API_REQUESTS, (n) => make(n + 40));
      api[kind] = {
        statuses,
        serverCpuUs: perUnit((cpuSeconds([server.pid]) - serverFrom) * 1e6, API_REQUESTS, 0),
        postgresCpuUs: perUnit((postgres.cpu() - pgFrom) * 1e6, API_REQUESTS, 0),
        redisCpuUs: perUnit((cpuSeconds([store.pid]) - redisFrom) * 1e6, API_REQUESTS, 0),
      };
      log(`${kind}: ${JSON.stringify(api[kind])}`);
    }

    // Links: a cached record in Redis, a row in PostgreSQL.
    await db.query('VACUUM ANALYZE links');
    const { rows: linkRows } = await db.query(
      `SELECT count(*)::bigint AS rows, pg_total_relation_size('links')::bigint AS bytes FROM links`,
    );

    const figures = {
      measuredAt: new Date().toISOString(),
      machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
      clicks: {
        sent: CLICKS,
        statuses: clickStatuses,
        counted,
        perClick: {
          serverCpuUs: perUnit(serverCpu * 1e6, counted),
          redisCpuUs: perUnit((after.cpu - before.cpu) * 1e6, counted),
          redisCommands: perUnit(
            Object.values(commands).reduce((a, b) => a + b, 0),
            1,
            3,
          ),
          redisCommandsByName: commands,
          redisBytesReceived: perUnit(after.netIn - before.netIn, counted),
          redisBytesSent: perUnit(after.netOut - before.netOut, counted),
          redisAofBytes: perUnit(after.aofBytes - before.aofBytes, counted),
          redisMemoryWhileInStreamBytes: perUnit(after.usedMemory - before.usedMemory, counted),
          postgresRawBytes: perUnit(Number(rawRows[0].bytes), clickRows, 0),
          postgresRawHeapBytes: perUnit(Number(rawRows[0].heap), clickRows, 0),
        },
        // The second pass, the click worker running: everything a click costs, written.
        withWriter: {
          clicks: written,
          serverCpuUs: perUnit((writeAfter.server - writeBefore.server) * 1e6, written),
          redisCpuUs: perUnit((writeAfter.redis.cpu - writeBefore.redis.cpu) * 1e6, written),
          clickWorkerCpuUs: perUnit((writeAfter.worker - writeBefore.worker) * 1e6, written),
          postgresCpuUs: perUnit((writeAfter.postgres - writeBefore.postgres) * 1e6, written),
          postgresWalBytes: perUnit(walBytes, written, 0),
          redisCommandsOfTheWriter: writeCommands,
          redisBytesReceived: perUnit(writeAfter.redis.netIn - writeBefore.redis.netIn, written),
          redisBytesSent: perUnit(writeAfter.redis.netOut - writeBefore.redis.netOut, written),
          redisAofBytes: perUnit(writeAfter.redis.aofBytes - writeBefore.redis.aofBytes, written),
        },
        rollups,
        redisMemoryWaiting: waitingMemory,
        redisMemoryHeld: heldMemory,
        redisUsedMemoryHeld: redisHeld.usedMemory,
      },
      api,
      redisHyperLogLogBytesByVisitors: await hyperLogLogBytes(
        store.redis,
        [1, 10, 100, 500, 1000, 2000, 10000],
      ),
      links: {
        redisBytesPerCachedRecord: heldMemory.linkrec
          ? perUnit(heldMemory.linkrec.bytes, heldMemory.linkrec.keys, 0)
          : null,
        postgresBytesPerLink: perUnit(Number(linkRows[0].bytes), Number(linkRows[0].rows), 0),
        postgresLinks: Number(linkRows[0].rows),
      },
    };
    fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    fs.writeFileSync(
      path.join(root, 'bench/results/capacity.json'),
      `${JSON.stringify(figures, null, 2)}\n`,
    );
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    // Both stopped before their stores go, so neither waits out its shutdown deadline.
    await Promise.all([worker, server].filter(Boolean).map(stopProcess));
    await db.end();
    await store.stop();
    postgres.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    agent.destroy();
  }
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exitCode = 1;
  });
}
