import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { sparePorts } from './spare-ports';

const run = promisify(execFile);

/**
 * A PostgreSQL primary and a streaming replica of the test's own: `initdb` in a directory
 * under the system's temporary directory, `pg_basebackup -R` (with a replication slot, so the
 * primary keeps the WAL a stopped replica needs), each server on a spare loopback port with
 * its socket in that directory. Never the machine's shared server. As root it runs everything
 * as the `postgres` OS user (`runuser`), as PostgreSQL refuses to run as root.
 */
export interface PrivatePostgresPair {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops the replica (fast shutdown: its connections are closed at once). */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Pauses WAL replay on the replica (it keeps receiving), so it falls behind for real. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops both servers and removes their files. */
  remove(): Promise<void>;
}

const DATABASE = 'linkpilot';

/** Debian's server binaries (`postgresql-NN`), the newest installed; null when none are. */
function postgresBinDir(): string | null {
  const fromEnv = process.env.SCALE_PG_BINDIR;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((version) => fs.existsSync(path.join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? null : path.join(root, versions[0], 'bin');
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** The command line of a server binary, as the postgres OS user when this process is root. */
function asPostgres(binDir: string, binary: string, args: string[]): [string, string[]] {
  const command = path.join(binDir, binary);
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function runAsPostgres(binDir: string, binary: string, args: string[]): Promise<void> {
  const [command, commandArgs] = asPostgres(binDir, binary, args);
  await run(command, commandArgs, { timeout: 60_000 });
}

function urlOf(port: number, database = DATABASE): string {
  return `postgresql://postgres@127.0.0.1:${port}/${database}`;
}

async function query<T>(port: number, sql: string, database = DATABASE): Promise<T[]> {
  const client = new Client({ connectionString: urlOf(port, database) });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

async function until(what: string, isDone: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await isDone().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL: ${what} within ${timeoutMs} ms`);
    await delay(100);
  }
}

export async function startPostgresWithReplica(): Promise<PrivatePostgresPair> {
  const binDir = postgresBinDir();
  if (binDir === null) throw new Error('No PostgreSQL server binaries in /usr/lib/postgresql');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-pg-'));
  if (isRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    fs.chownSync(dir, uid, gid);
  }
  const [primaryPort, replicaPort] = await sparePorts(2);
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  // No fsync: a test server that never outlives the machine's crash; WAL and replay as usual.
  const serverOptions = (port: number): string =>
    [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c max_connections=200',
      '-c shared_buffers=64MB',
      '-c hot_standby=on',
      '-c hot_standby_feedback=on',
    ].join(' ');
  const pgCtl = (dataDir: string, ...args: string[]): Promise<void> =>
    runAsPostgres(binDir, 'pg_ctl', ['-D', dataDir, ...args]);
  const startServer = (dataDir: string, port: number, log: string): Promise<void> =>
    pgCtl(dataDir, '-o', serverOptions(port), '-l', path.join(dir, log), '-w', 'start');

  const remove = async (): Promise<void> => {
    for (const dataDir of [replicaDir, primaryDir]) {
      if (fs.existsSync(path.join(dataDir, 'postmaster.pid'))) {
        await pgCtl(dataDir, '-m', 'immediate', '-w', 'stop').catch(() => undefined);
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    await runAsPostgres(binDir, 'initdb', [
      ...['-D', primaryDir, '-A', 'trust', '-U', 'postgres'],
      ...['-E', 'UTF8', '--locale=C', '--no-sync'],
    ]);
    await startServer(primaryDir, primaryPort, 'primary.log');
    await query(primaryPort, `CREATE DATABASE ${DATABASE}`, 'postgres');
    await runAsPostgres(binDir, 'pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
      ...['-D', replicaDir, '-R', '-C', '-S', 'scale_replica', '-X', 'stream', '--no-sync'],
      // Its starting checkpoint at once: a spread one takes most of checkpoint_timeout (5 min).
      '--checkpoint=fast',
    ]);
    await startServer(replicaDir, replicaPort, 'replica.log');
    await until('the replica streaming', async () => {
      const rows = await query<{ state: string }>(
        primaryPort,
        'SELECT state FROM pg_stat_replication',
      );
      return rows.some((row) => row.state === 'streaming');
    });
  } catch (error) {
    await remove();
    throw error;
  }

  return {
    primaryUrl: urlOf(primaryPort),
    replicaUrl: urlOf(replicaPort),
    stopReplica: () => pgCtl(replicaDir, '-m', 'fast', '-w', 'stop'),
    startReplica: async () => {
      await startServer(replicaDir, replicaPort, 'replica.log');
      await until('the replica streaming again', async () => {
        const rows = await query<{ status: string }>(
          replicaPort,
          'SELECT status FROM pg_stat_wal_receiver',
        );
        return rows.some((row) => row.status === 'streaming');
      });
    },
    pauseReplay: async () => {
      await query(replicaPort, 'SELECT pg_wal_replay_pause()');
    },
    resumeReplay: async () => {
      await query(replicaPort, 'SELECT pg_wal_replay_resume()');
    },
    remove,
  };
}
