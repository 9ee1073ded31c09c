import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { sparePort } from './spare-ports';

/** The configuration docker-compose.yml's `scale` profile runs too. */
const HAPROXY_CONFIG = path.resolve(__dirname, '../../deploy/haproxy.cfg');

/** One app node as HAProxy's stats tell it (`show stat`). */
interface HaproxyServerStat {
  name: string;
  /** UP, DOWN, or a transition (`UP 1/2`, `DOWN 1/2`). */
  status: string;
  /** Sessions (requests in flight on a connection to it) now. */
  current: number;
  total: number;
  /** Requests sent to it again after a failure (retries), and to another node (redispatches). */
  retries: number;
  redispatches: number;
  connectionErrors: number;
  responseErrors: number;
  /** 5xx answers it gave (HAProxy's own 5xx are counted on the backend, not here). */
  responses5xx: number;
}

export interface PrivateHaproxy {
  port: number;
  url: string;
  servers(): Promise<HaproxyServerStat[]>;
  stop(): Promise<void>;
}

function adminCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(5000, () => socket.destroy(new Error('HAProxy stats socket timed out')));
    socket.once('connect', () => socket.write(`${command}\n`));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.once('end', () => resolve(answer));
    socket.once('error', reject);
  });
}

/** `show stat`'s CSV rows of the `app` backend's servers. */
function parseServerStats(csv: string): HaproxyServerStat[] {
  const [header, ...rows] = csv.split('\n').filter((line) => line.trim() !== '');
  const columns = header.replace(/^# /, '').split(',');
  const at = (cells: string[], name: string): string => cells[columns.indexOf(name)] ?? '';
  const count = (cells: string[], name: string): number => Number(at(cells, name) || 0);
  return rows
    .map((row) => row.split(','))
    .filter((cells) => at(cells, 'pxname') === 'app' && !/^(FRONTEND|BACKEND)$/.test(cells[1]))
    .map((cells) => ({
      name: at(cells, 'svname'),
      status: at(cells, 'status'),
      current: count(cells, 'scur'),
      total: count(cells, 'stot'),
      retries: count(cells, 'wretr'),
      redispatches: count(cells, 'wredis'),
      connectionErrors: count(cells, 'econ'),
      responseErrors: count(cells, 'eresp'),
      responses5xx: count(cells, 'hrsp_5xx'),
    }));
}

/** HAProxy on a spare loopback port in front of three app nodes on `appPorts`. */
export async function startHaproxy(appPorts: [number, number, number]): Promise<PrivateHaproxy> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-haproxy-'));
  const socketPath = path.join(dir, 'admin.sock');
  const port = await sparePort();
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', HAPROXY_CONFIG], {
    env: {
      ...process.env,
      LINKPILOT_BIND: `127.0.0.1:${port}`,
      LINKPILOT_APP1: `127.0.0.1:${appPorts[0]}`,
      LINKPILOT_APP2: `127.0.0.1:${appPorts[1]}`,
      LINKPILOT_APP3: `127.0.0.1:${appPorts[2]}`,
      HAPROXY_STATS_SOCKET: socketPath,
    },
    // Its alerts (a node going down and up) are part of the run's story.
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!fs.existsSync(socketPath)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error('haproxy did not start');
    }
    await delay(50);
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    servers: async () => parseServerStats(await adminCommand(socketPath, 'show stat')),
    stop,
  };
}
