'use strict';
/**
 * What every bench script needs around the server it measures: the stores made fresh, the
 * admin CLI run against them, a core to pin a process to, and the webhook key a server on
 * PostgreSQL refuses to start without (docs/configuration.md; the benches store no secret).
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { Client } = require('pg');
const Redis = require('ioredis');

exports.BENCH_WEBHOOK_SECRET_KEY =
  '0b5e4c1d7a9f3e2b8c6d0a4f1e7b9c3d5a2f8e6b4d0c7a1e9f3b5d2c8a6e4f0b';

/** Whether `taskset` can pin processes here (not every container allows it). */
exports.hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    return true;
  } catch {
    return false;
  }
})();

/** `[command, args]` run on `core` when it can be pinned, else as it is. */
exports.pinned = (core, command, args) =>
  exports.hasTaskset ? ['taskset', ['-c', String(core), command, ...args]] : [command, args];

async function flushRedis(redisUrl) {
  const redis = new Redis(redisUrl);
  await redis.flushdb();
  await redis.quit();
}
exports.flushRedis = flushRedis;

/** Drops and makes again the database of `databaseUrl` (empty: no migration has run). */
async function resetDatabase(databaseUrl) {
  const admin = new Client({
    connectionString: databaseUrl.replace(/\/[^/?]+(\?|$)/, '/postgres$1'),
  });
  await admin.connect();
  const dbName = new URL(databaseUrl).pathname.slice(1);
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
}
exports.resetDatabase = resetDatabase;

/** Drops and makes again the database of `databaseUrl`, and empties the Redis database. */
exports.resetStores = async (databaseUrl, redisUrl) => {
  await resetDatabase(databaseUrl);
  await flushRedis(redisUrl);
};

/** `linkpilot <args> --json` of the checkout at `root`, on the bench's stores. */
exports.runCli = (root, databaseUrl, redisUrl, args) => {
  execFileSync(process.execPath, [path.join(root, 'bin/linkpilot.js'), ...args, '--json'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
};
