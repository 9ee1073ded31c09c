import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { sparePorts } from './spare-ports';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A Redis Cluster of the test's own: three masters (no replicas) on spare loopback ports,
 * with their cluster bus on spare ports too (`--cluster-port`, Redis 7), no persistence,
 * config files in a directory of its own. Never the machine's shared Redis.
 */
export interface PrivateRedisCluster {
  /** REDIS_CLUSTER_NODES of an app on it. */
  nodes: string;
  ports: number[];
  /** Freezes the node on this port (SIGSTOP), as PrivateRedis.stall does one server. */
  stall(port: number): void;
  /** Lets a stalled node run again (SIGCONT). */
  resume(port: number): void;
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

export async function startRedisCluster(masters = 3): Promise<PrivateRedisCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-redis-cluster-'));
  const allPorts = await sparePorts(2 * masters);
  const ports = allPorts.slice(0, masters);
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
      const busPort = allPorts[masters + i];
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
        ...['--cluster-replicas', '0', '--cluster-yes'],
      ],
      { timeout: 30_000 },
    );
    // Every node must see every slot served before a client trusts any node's slot map.
    for (const port of ports) {
      await until(`node ${port} reporting cluster_state:ok`, async () => {
        const info = await cli(port, 'CLUSTER', 'INFO');
        return info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${masters}`);
      });
    }
  } catch (error) {
    await remove();
    throw error;
  }
  const signal = (port: number, name: 'SIGSTOP' | 'SIGCONT'): void => {
    const child = children[ports.indexOf(port)];
    if (child === undefined) throw new Error(`No node of this cluster on port ${port}`);
    child.kill(name);
  };
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    stall: (port) => signal(port, 'SIGSTOP'),
    resume: (port) => signal(port, 'SIGCONT'),
    remove,
  };
}
