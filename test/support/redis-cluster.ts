import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { sparePorts } from './spare-ports';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A Redis Cluster of the test's own: three masters (by default without replicas; `npm run
 * test:scale` gives each one) on spare loopback ports, with their cluster bus on spare ports
 * too (`--cluster-port`, Redis 7), no persistence, config files in a directory of its own.
 * Never the machine's shared Redis.
 */
export interface PrivateRedisCluster {
  /** REDIS_CLUSTER_NODES of an app on it. */
  nodes: string;
  /** Every node's port, masters and replicas. */
  ports: number[];
  /** Freezes the node on this port (SIGSTOP), as PrivateRedis.stall does one server. */
  stall(port: number): void;
  /** Lets a stalled node run again (SIGCONT). */
  resume(port: number): void;
  /** The masters' ports and each one's replica (null without replicas), as the cluster says now. */
  topology(): Promise<{ master: number; replica: number | null }[]>;
  /**
   * A manual failover of the master on `masterPort`: CLUSTER FAILOVER on its replica (which
   * waits for the replica to have every write of the master, then swaps them: no write is
   * lost), until the replica serves as master and every node answering agrees the cluster is
   * whole; then the old master is stopped (SIGKILL). Answers the new master's port.
   */
  failOver(masterPort: number): Promise<number>;
  /** Stops every node and removes their files. */
  remove(): Promise<void>;
}

/** `redis-cli` on one node; its output, or '' when it could not answer. */
async function cli(port: number, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
      timeout: 5_000,
    });
    return stdout;
  } catch {
    return '';
  }
}

async function until(what: string, isDone: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await isDone())) {
    if (Date.now() > deadline) throw new Error(`Redis Cluster: ${what} within ${timeoutMs} ms`);
    await delay(50);
  }
}

interface ClusterNode {
  id: string;
  port: number;
  isMaster: boolean;
  masterId: string | null;
  isFailed: boolean;
}

/** CLUSTER NODES as one node sees it. */
async function clusterNodes(port: number): Promise<ClusterNode[]> {
  return (await cli(port, 'CLUSTER', 'NODES'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id, address, flags, masterId] = line.split(' ');
      return {
        id,
        port: Number(address.split('@')[0].split(':').at(-1)),
        isMaster: flags.split(',').includes('master'),
        masterId: masterId === '-' ? null : masterId,
        isFailed: /fail/.test(flags),
      };
    });
}

export async function startRedisCluster(
  masters = 3,
  { replicasPerMaster = 0 }: { replicasPerMaster?: number } = {},
): Promise<PrivateRedisCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-redis-cluster-'));
  const nodeCount = masters * (1 + replicasPerMaster);
  const allPorts = await sparePorts(2 * nodeCount);
  const ports = allPorts.slice(0, nodeCount);
  const children: ChildProcess[] = [];

  const remove = async (): Promise<void> => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    ports.forEach((port, i) => {
      const busPort = allPorts[nodeCount + i];
      children.push(
        spawn(
          'redis-server',
          // Flags as documented in the README's "Redis Cluster" section.
          [
            ...['--port', String(port), '--cluster-port', String(busPort)],
            ...['--bind', '127.0.0.1', '--cluster-enabled', 'yes'],
            ...['--cluster-config-file', `nodes-${port}.conf`, '--dir', dir],
            ...['--save', '', '--appendonly', 'no'],
          ],
          { stdio: 'ignore' },
        ),
      );
    });
    for (const port of ports) {
      await until(`node ${port} answering`, async () => (await cli(port, 'PING')).includes('PONG'));
    }
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        ...['--cluster-replicas', String(replicasPerMaster), '--cluster-yes'],
      ],
      { timeout: 30_000 },
    );
    // Every node must see every slot served before a client trusts any node's slot map.
    for (const port of ports) {
      await until(`node ${port} reporting cluster_state:ok`, async () => {
        const info = await cli(port, 'CLUSTER', 'INFO');
        return (
          info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${nodeCount}`)
        );
      });
    }
  } catch (error) {
    await remove();
    throw error;
  }
  const signal = (port: number, name: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): void => {
    const child = children[ports.indexOf(port)];
    if (child === undefined) throw new Error(`No node of this cluster on port ${port}`);
    child.kill(name);
  };
  const isRunning = (port: number): boolean => {
    const child = children[ports.indexOf(port)];
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  };
  const topology = async (): Promise<{ master: number; replica: number | null }[]> => {
    const asker = ports.find(isRunning);
    if (asker === undefined) return [];
    const nodes = (await clusterNodes(asker)).filter((node) => !node.isFailed);
    return nodes
      .filter((node) => node.isMaster)
      .map((master) => ({
        master: master.port,
        replica: nodes.find((node) => node.masterId === master.id)?.port ?? null,
      }));
  };
  const failOver = async (masterPort: number): Promise<number> => {
    const replica = (await topology()).find(({ master }) => master === masterPort)?.replica;
    if (replica === null || replica === undefined) {
      throw new Error(`The master on port ${masterPort} has no replica to fail over to`);
    }
    if (!(await cli(replica, 'CLUSTER', 'FAILOVER')).includes('OK')) {
      throw new Error(`CLUSTER FAILOVER refused on port ${replica}`);
    }
    await until(`node ${replica} promoted`, async () =>
      (await cli(replica, 'ROLE')).startsWith('master'),
    );
    await until('every node seeing the new master', async () => {
      for (const port of ports.filter(isRunning)) {
        const nodes = await clusterNodes(port);
        if (!nodes.some((node) => node.port === replica && node.isMaster)) return false;
        if (!(await cli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
      }
      return true;
    });
    const child = children[ports.indexOf(masterPort)];
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signal(masterPort, 'SIGKILL');
    await exited;
    return replica;
  };
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    stall: (port) => signal(port, 'SIGSTOP'),
    resume: (port) => signal(port, 'SIGCONT'),
    topology,
    failOver,
    remove,
  };
}
