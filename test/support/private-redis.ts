import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { sparePort } from './spare-ports';

/**
 * A redis-server of the test's own on a spare loopback port (never the machine's shared
 * Redis), with no persistence of its own, so a test can stop it and start it again the way an
 * outage does. Killed, its data is gone: the restart is a Redis that lost everything; stopped
 * with `keepData`, it writes a snapshot first (SHUTDOWN SAVE) and the restart loads it, as a
 * Redis with AOF comes back from a clean stop.
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** Waits until the process has exited. */
  stop(options?: { keepData?: boolean }): Promise<void>;
  /** The server again on the same port, once it answers PING. */
  start(): Promise<void>;
  /**
   * Freezes the process (SIGSTOP): its connections stay open and the kernel still accepts new
   * ones, but nothing is answered, as when Redis hangs on a slow disk, a swap storm or a fork.
   */
  stall(): void;
  /** Lets a stalled process run again (SIGCONT): it answers what it was sent meanwhile. */
  resume(): void;
  /** Stops it for good and removes its files. */
  remove(): Promise<void>;
}

/** True when a redis-server binary can be run (CI installs it; a newcomer's laptop may not). */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Sends one inline command; the first reply's text, or null when nothing answered. */
async function send(port: number, command: string): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString());
    });
    socket.once('close', () => resolve(null));
    socket.once('error', () => resolve(null));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(null);
    });
  });
}

const answersPing = async (port: number): Promise<boolean> =>
  (await send(port, 'PING'))?.startsWith('+PONG') === true;

/**
 * `appendOnly`: AOF with an fsync every second, as production runs Redis (README
 * "Durability"), for runs that stop it the way a crash or a restart does (`npm run chaos`).
 */
export async function startPrivateRedis({ appendOnly = false } = {}): Promise<PrivateRedis> {
  const port = await sparePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-redis-'));
  let child: ChildProcess | null = null;

  const start = async (): Promise<void> => {
    if (child !== null && child.exitCode === null) return;
    const server = spawn(
      'redis-server',
      // A snapshot only on SHUTDOWN SAVE, in a directory of its own.
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        appendOnly ? 'yes' : 'no',
        '--appendfsync',
        'everysec',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    child = server;
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(port))) {
      if (server.exitCode !== null || Date.now() > deadline) {
        throw new Error(`redis-server on port ${port} did not start`);
      }
      await delay(20);
    }
  };

  const stop = async ({ keepData = false } = {}): Promise<void> => {
    const server = child;
    child = null;
    if (server === null || server.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    // A stalled server would never answer SHUTDOWN SAVE (a test that failed mid-stall).
    server.kill('SIGCONT');
    if (keepData) await send(port, 'SHUTDOWN SAVE');
    else {
      fs.rmSync(path.join(dir, 'dump.rdb'), { force: true });
      fs.rmSync(path.join(dir, 'appendonlydir'), { recursive: true, force: true });
      server.kill('SIGKILL');
    }
    await exited;
  };

  const signal = (name: 'SIGSTOP' | 'SIGCONT'): void => {
    if (child === null || child.exitCode !== null) throw new Error('redis-server is not running');
    child.kill(name);
  };

  const remove = async (): Promise<void> => {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    stop,
    start,
    stall: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    remove,
  };
}
