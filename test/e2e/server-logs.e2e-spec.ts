import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { projectRoot } from '../../src/common/project-root';
import { pollUntil } from '../support/poll';
import { sparePorts } from '../support/spare-ports';
import { TEST_WEBHOOK_SECRET_KEY } from '../support/test-webhook-key';

const ROOT = projectRoot();
const isEmbedded = process.env.ANALYTICS_POOL_SIZE === '0';

/**
 * The built server's own output, as production writes it (stdout not a terminal): every line
 * one JSON object, TypeORM's included; and the CLI's on stderr. A query is made to fail on a
 * database of the test's own (a table renamed under the server), so the shared one is never
 * touched.
 */
describe('Server logs (e2e)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-logs-'));
  const databaseName = `linkpilot_logs_${randomBytes(4).toString('hex')}`;
  let databaseUrl: string;
  let server: ChildProcess;
  let stdout = '';
  let stderr = '';
  let port: number;
  let metricsPort: number;

  /** The server's database: its own embedded one under DATA_DIR, or a PostgreSQL database of its own. */
  const serverDatabase = (): Record<string, string> => ({
    DATABASE_URL: isEmbedded ? '' : databaseUrl,
    REDIS_URL: '',
    DATA_DIR: dataDir,
  });

  const lines = (): Record<string, unknown>[] =>
    stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  beforeAll(async () => {
    execFileSync(process.execPath, ['-e', "require('./bin/ensure-built').ensureBuilt()"], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (isEmbedded) {
      // The server creates its own embedded database under DATA_DIR.
      databaseUrl = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}`;
    } else {
      const admin = new Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${databaseName}`);
      await admin.end();
      const url = new URL(process.env.DATABASE_URL ?? '');
      url.pathname = `/${databaseName}`;
      databaseUrl = url.toString();
    }
    [port, metricsPort] = await sparePorts(2);
    server = spawn(process.execPath, [path.join(ROOT, 'dist/main.js'), '--migrate', '--seed'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...serverDatabase(),
        PORT: String(port),
        HOST: '127.0.0.1',
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'info',
        PROBES_ENABLED: 'false',
        WEBHOOK_WORKER_ENABLED: 'false',
        WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
        FX_PRIMARY_URL: 'http://127.0.0.1:9/fx-primary',
        FX_FALLBACK_URL: 'http://127.0.0.1:9/fx-fallback',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await pollUntil(
      () => Promise.resolve(stdout),
      (text) => text.includes('Linkpilot listening') || server.exitCode !== null,
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    if (server.exitCode !== null) throw new Error(`The server did not start:\n${stdout}${stderr}`);
  }, 180_000);

  afterAll(async () => {
    if (server?.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
    if (!isEmbedded) {
      const admin = new Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
      await admin.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('should name the host and port it listens on, for the API and for /metrics', () => {
    expect(lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          context: 'Main',
          msg: expect.stringContaining('Linkpilot listening'),
          host: '127.0.0.1',
          port,
          url: `http://127.0.0.1:${port}`,
        }),
        expect.objectContaining({
          context: 'Metrics',
          msg: expect.stringContaining('/metrics'),
          host: '127.0.0.1',
          port: metricsPort,
        }),
      ]),
    );
  });

  it('should write a failed query as a JSON line, without the values bound to it', async () => {
    const created = execFileSync(
      process.execPath,
      [
        path.join(ROOT, 'bin/linkpilot.js'),
        'creators',
        'create',
        '--plan',
        'enterprise',
        '--with-key',
        '--json',
      ],
      { cwd: ROOT, env: { ...process.env, ...serverDatabase(), LOG_LEVEL: 'fatal' } },
    );
    const apiKey = (JSON.parse(created.toString()) as { apiKey: { apiKey: string } }).apiKey.apiKey;
    const listLinks = () =>
      fetch(`http://127.0.0.1:${port}/v1/links?search=secret-search-term`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
    expect((await listLinks()).status).toBe(200);
    const session = new Client({ connectionString: databaseUrl });
    await session.connect();
    await session.query('ALTER TABLE links RENAME TO links_elsewhere');
    await session.end();
    expect((await listLinks()).status).toBeGreaterThanOrEqual(500);

    const failed = await pollUntil(
      () => Promise.resolve(lines().filter((line) => line.context === 'TypeORM')),
      (found) => found.length > 0,
    );
    expect(failed[0]).toMatchObject({
      level: 'error',
      msg: expect.stringMatching(
        /^Query failed: relation "links" does not exist -- SELECT .* \(\d+ parameters, not logged\)$/,
      ),
    });
    expect(stdout).not.toContain('PARAMETERS');
    expect(stdout).not.toContain('secret-search-term');
    expect(stdout).not.toContain(apiKey.slice('lp_live_sk_'.length));
    // Nothing on stderr either: no plain-text line anywhere.
    expect(stderr).toBe('');
  });

  it("should write the CLI's failed query as a JSON line on stderr, without the values bound to it", async () => {
    const session = new Client({ connectionString: databaseUrl });
    await session.connect();
    await session.query('ALTER TABLE creators RENAME TO creators_elsewhere');
    let run: { code: number; stdout: string; stderr: string };
    try {
      run = await new Promise((resolve) => {
        execFile(
          process.execPath,
          [
            path.join(ROOT, 'bin/linkpilot.js'),
            'creators',
            'create',
            '--plan',
            'free',
            '--email',
            'secret-address@example.com',
            '--json',
          ],
          { cwd: ROOT, env: { ...process.env, ...serverDatabase(), LOG_LEVEL: 'info' } },
          (error, stdout, stderr) => {
            const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
            resolve({ code, stdout, stderr });
          },
        );
      });
    } finally {
      await session.query('ALTER TABLE creators_elsewhere RENAME TO creators');
      await session.end();
    }
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
    const stderrLines = run.stderr.split('\n').filter((line) => line !== '');
    const plainText = stderrLines.filter((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    expect(plainText).toEqual([]);
    expect(stderrLines.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({
        context: 'TypeORM',
        level: 'error',
        msg: expect.stringMatching(
          /^Query failed: relation "creators" does not exist -- SELECT .* \(\d+ parameters, not logged\)$/,
        ),
      }),
    );
    expect(run.stderr).not.toContain('PARAMETERS');
    expect(run.stderr).not.toContain('secret-address');
  });
});
