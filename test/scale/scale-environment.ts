import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Cluster } from 'ioredis';
import { Client } from 'pg';
import { startHaproxy, PrivateHaproxy } from '../support/haproxy';
import { PrivatePostgresPair, startPostgresWithReplica } from '../support/private-postgres';
import { PrivateRedisCluster, startRedisCluster } from '../support/redis-cluster';
import { sparePorts } from '../support/spare-ports';
import { TEST_WEBHOOK_SECRET_KEY } from '../support/test-webhook-key';

const ROOT = path.resolve(__dirname, '../..');

/** HAProxy reaches the nodes from here; the nodes trust nothing else (TRUST_PROXY). */
const HAPROXY_SOURCE_ADDRESS = '127.0.0.1';
/** A replica further behind than this is skipped: short, so the run can pass it for real. */
export const MAX_REPLICA_LAG_S = 3;

/** One app node: the built server (dist/main.js) as a process of its own. */
export interface AppNode {
  name: string;
  port: number;
  metricsPort: number;
  dataDir: string;
  isRunning(): boolean;
  /** SIGKILL: no shutdown, in-flight requests cut. */
  kill(): Promise<void>;
  start(): Promise<void>;
}

/** Everything test:scale runs, each on spare loopback ports and files under the temp dir. */
export interface ScaleEnvironment {
  postgres: PrivatePostgresPair;
  redis: PrivateRedisCluster;
  /** A cluster client of the test's own (quota counters, streams). */
  admin: Cluster;
  nodes: AppNode[];
  haproxy: PrivateHaproxy;
  /** A client of the primary, for the stored clicks. */
  primary(): Promise<Client>;
  stop(): Promise<void>;
}

async function until(what: string, isDone: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await isDone().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await delay(200);
  }
}

function runCli(args: string[], env: NodeJS.ProcessEnv): void {
  execFileSync(process.execPath, [path.join(ROOT, 'bin/linkpilot.js'), ...args, '--json'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

function startNode(
  name: string,
  port: number,
  metricsPort: number,
  env: NodeJS.ProcessEnv,
): AppNode {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `linkpilot-scale-${name}-`));
  let child: ChildProcess | null = null;
  const node: AppNode = {
    name,
    port,
    metricsPort,
    dataDir,
    isRunning: () => child !== null && child.exitCode === null && child.signalCode === null,
    kill: async () => {
      const running = child;
      if (running === null || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGKILL');
      await exited;
    },
    start: async () => {
      child = spawn(process.execPath, [path.join(ROOT, 'dist/main.js')], {
        cwd: ROOT,
        env: {
          ...env,
          PORT: String(port),
          METRICS_PORT: String(metricsPort),
          DATA_DIR: dataDir,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      await until(`${name} ready`, async () => {
        const response = await fetch(`http://127.0.0.1:${port}/readyz`);
        return response.ok;
      });
    },
  };
  return node;
}

export async function startScaleEnvironment(): Promise<ScaleEnvironment> {
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    for (const stopOne of stoppers.reverse()) await stopOne().catch(() => undefined);
  };
  try {
    const postgres = await startPostgresWithReplica();
    stoppers.push(() => postgres.remove());
    const redis = await startRedisCluster(3, { replicasPerMaster: 1 });
    stoppers.push(() => redis.remove());
    const admin = new Cluster(redis.ports.map((port) => ({ host: '127.0.0.1', port })));
    admin.on('error', () => undefined);
    stoppers.push(() => {
      admin.disconnect();
      return Promise.resolve();
    });

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      DATABASE_URL: postgres.primaryUrl,
      DATABASE_READ_URL: postgres.replicaUrl,
      DATABASE_READ_MAX_LAG_S: String(MAX_REPLICA_LAG_S),
      REDIS_URL: '',
      REDIS_CLUSTER_NODES: redis.nodes,
      // HAProxy's address only: visitors and API callers come from other loopback addresses.
      TRUST_PROXY: `${HAPROXY_SOURCE_ADDRESS}/32`,
      REQUIRE_HTTPS: 'false',
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
      PROBES_ENABLED: 'false',
      FX_PRIMARY_URL: 'http://127.0.0.1:9/fx-primary',
      FX_FALLBACK_URL: 'http://127.0.0.1:9/fx-fallback',
      // Entries the killed node's consumer held are claimed by the others after this.
      CLICK_CLAIM_IDLE_MS: '5000',
    };
    runCli(['db', 'migrate'], env);
    runCli(['db', 'seed'], env);

    const ports = await sparePorts(6);
    const nodes = [0, 1, 2].map((i) =>
      startNode(`app${i + 1}`, ports[i], ports[3 + i], {
        ...env,
        REDIRECT_BASE_URL: 'http://127.0.0.1',
      }),
    );
    stoppers.push(async () => {
      await Promise.all(nodes.map((node) => node.kill()));
      for (const node of nodes) fs.rmSync(node.dataDir, { recursive: true, force: true });
    });
    await Promise.all(nodes.map((node) => node.start()));

    const haproxy = await startHaproxy([nodes[0].port, nodes[1].port, nodes[2].port]);
    stoppers.push(() => haproxy.stop());
    await until('HAProxy seeing every node up', async () =>
      (await haproxy.servers()).every((server) => server.status === 'UP'),
    );

    return {
      postgres,
      redis,
      admin,
      nodes,
      haproxy,
      primary: async () => {
        const client = new Client({ connectionString: postgres.primaryUrl });
        await client.connect();
        return client;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
