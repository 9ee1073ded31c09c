import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { connect, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { createCreatorWithKey } from '../factories/creator.factory';
import { createLink } from '../factories/link.factory';
import { DESKTOP_BROWSER_UA } from '../support/edge-visit';
import { pollUntil } from '../support/poll';
import { sparePort } from '../support/spare-ports';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_WEBHOOK_SECRET_KEY } from '../support/test-webhook-key';

const ROOT = path.resolve(__dirname, '../..');
/** What main.ts promises: a stopping process is gone by then. */
const SHUTDOWN_DEADLINE_MS = 10_000;
/** Keep-alive connections that click without pause, on each front of /r/. */
const RAW_FRONT_CONNECTIONS = 12;
const FASTIFY_FRONT_CONNECTIONS = 4;
/** Answered clicks before SIGTERM, so that it lands in the middle of the load. */
const CLICKS_BEFORE_SIGTERM = 300;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One connection's clicks: what each got, and the error that ended it, if any. */
interface ConnectionLog {
  answers: Answer[];
  error: Error | null;
}

/**
 * SIGTERM to the built server (`node dist/main.js`, as production runs it) under a steady
 * stream of clicks on keep-alive connections, on both fronts of /r/ (the raw one answers plain
 * clicks, Fastify's route the clicks with an Origin): it must exit 0 within the deadline,
 * answer every request it took (302, or 503 with `Connection: close` once shutting down; never
 * a reset), close idle connections rather than wait for them, and every click it answered 302
 * must reach PostgreSQL (through the Redis stream; on the embedded default, whose in-process
 * stream dies with the server, its consumer writes what the stream holds before it exits).
 */
describe('Graceful shutdown of the built server (e2e)', () => {
  let t: TestApp;
  let server: ChildProcess;
  let serverOutput = '';
  let dataDir: string;
  let baseUrl: string;
  let linkIds: string[];
  let nextAddress = 1;

  beforeAll(async () => {
    // The test runs what production runs: dist/, built here when missing or stale.
    execFileSync(process.execPath, ['-e', "require('./bin/ensure-built').ensureBuilt()"], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    t = await startTestApp();
    // Enterprise creators (10,000 clicks a minute each), so no click here meets an edge limit.
    linkIds = [];
    for (let creator = 0; creator < 4; creator++) {
      const { creatorId } = await createCreatorWithKey(t.app, { plan: 'enterprise' });
      for (let link = 0; link < 2; link++) {
        linkIds.push((await createLink(t.app, { creatorId })).id);
      }
    }
    dataDir = mkdtempSync(path.join(tmpdir(), 'linkpilot-shutdown-'));
    const port = await sparePort();
    baseUrl = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [path.join(ROOT, 'dist/main.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        PROBES_ENABLED: 'false',
        WEBHOOK_WORKER_ENABLED: 'false',
        WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
        FX_PRIMARY_URL: 'http://127.0.0.1:9/fx-primary',
        FX_FALLBACK_URL: 'http://127.0.0.1:9/fx-fallback',
        // The server's own consumer runs, so SIGTERM also meets a batch under way.
        CLICK_CONSUMER_ENABLED: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (chunk: Buffer) => (serverOutput += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (serverOutput += chunk.toString()));
    await pollUntil(
      () =>
        fetch(`${baseUrl}/livez`).then(
          (response) => response.status,
          () => 0,
        ),
      (status) => status === 200 || server.exitCode !== null,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    if (server.exitCode !== null) throw new Error(`The server did not start:\n${serverOutput}`);
  }, 240_000);

  afterAll(async () => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** One click on `link`, from a fresh address (no per-IP window is ever met). */
  const click = (agent: Agent, linkId: string, headers: Record<string, string>) =>
    new Promise<Answer>((resolve, reject) => {
      const address = nextAddress++;
      const request = httpRequest(
        `${baseUrl}/r/${linkId}`,
        {
          agent,
          headers: {
            'user-agent': DESKTOP_BROWSER_UA,
            'x-forwarded-for': `198.18.${(address >> 8) & 255}.${address & 255}`,
            ...headers,
          },
        },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
          );
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end();
    });

  /**
   * Clicks back to back on one keep-alive connection until the server says it closes it
   * (`Connection: close`), as a well-behaved client does, or until an error ends it.
   */
  const clickUntilClosed = async (
    log: ConnectionLog,
    headers: Record<string, string>,
  ): Promise<void> => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let index = 0; ; index++) {
        const answer = await click(agent, linkIds[index % linkIds.length], headers);
        log.answers.push(answer);
        if (answer.headers.connection === 'close') return;
      }
    } catch (error) {
      log.error = error as Error;
    } finally {
      agent.destroy();
    }
  };

  it('should answer every click it took, close idle connections, record every 302 and exit 0 within the deadline', async () => {
    // A keep-alive connection left idle after one click, and one opened and never used.
    const idleAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await click(idleAgent, linkIds[0], {})).status).toBe(302);
    const neverUsed = await openConnection(baseUrl);
    const neverUsedClosed = closedBy(neverUsed);

    const logs: ConnectionLog[] = [];
    const loads: Promise<void>[] = [];
    for (let index = 0; index < RAW_FRONT_CONNECTIONS + FASTIFY_FRONT_CONNECTIONS; index++) {
      const log: ConnectionLog = { answers: [], error: null };
      logs.push(log);
      const viaFastify = index >= RAW_FRONT_CONNECTIONS;
      loads.push(clickUntilClosed(log, viaFastify ? { origin: 'https://linkpilot.io' } : {}));
    }
    const answered = () => logs.reduce((sum, log) => sum + log.answers.length, 0);
    await pollUntil(
      () => Promise.resolve(answered()),
      (count) => count >= CLICKS_BEFORE_SIGTERM,
      { timeoutMs: 30_000, intervalMs: 10 },
    );
    const answeredBeforeSigterm = answered();
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      server.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const sigtermAt = Date.now();
    server.kill('SIGTERM');

    const { code, signal } = await exited;
    const exitMs = Date.now() - sigtermAt;
    await Promise.all(loads);
    await neverUsedClosed;
    idleAgent.destroy();

    const context = `server output:\n${serverOutput}`;
    expect({ code, signal, context }).toEqual({ code: 0, signal: null, context });
    expect(exitMs).toBeLessThan(SHUTDOWN_DEADLINE_MS);
    // Never a reset: every connection ended on an answer saying it closes.
    expect(logs.map((log) => log.error?.message ?? null)).toEqual(logs.map(() => null));
    const answers = logs.flatMap((log) => log.answers);
    expect(answers.length).toBeGreaterThan(answeredBeforeSigterm);
    for (const log of logs) expect(log.answers.at(-1)?.headers.connection).toBe('close');
    const refused = answers.filter((answer) => answer.status !== 302);
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(answer.headers.connection).toBe('close');
      expect(JSON.parse(answer.body).error.code).toBe('SHUTTING_DOWN');
    }
    const redirected = answers.length - refused.length + 1; // the idle connection's click

    // With Redis, every 302 is a click in the stream, and the test app's consumer (a click
    // worker on the same stream) writes what the server's own did not. On the embedded default
    // the stream lived in the server's memory: its consumer wrote all of it before exiting.
    const stored = await pollUntil(
      () => countClicks(t, linkIds),
      (count) => count >= redirected,
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    expect(stored).toBe(redirected);
  }, 60_000);
});

function openConnection(baseUrl: string): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

function closedBy(socket: Socket): Promise<void> {
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

async function countClicks(t: TestApp, linkIds: string[]): Promise<number> {
  const rows: { count: number }[] = await t.app
    .get(DataSource)
    .query('SELECT count(*)::int AS count FROM clicks WHERE link_id = ANY($1::varchar[])', [
      linkIds,
    ]);
  return rows[0].count;
}
