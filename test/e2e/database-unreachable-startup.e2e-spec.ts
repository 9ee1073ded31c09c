import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { Client } from 'pg';
import { projectRoot } from '../../src/common/project-root';
import { sparePort } from '../support/spare-ports';
import { TEST_WEBHOOK_SECRET_KEY } from '../support/test-webhook-key';

const ROOT = projectRoot();
const isEmbedded = process.env.ANALYTICS_POOL_SIZE === '0';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** One entry point as a process of its own; the server ones exit by themselves on failure. */
function run(script: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, script), ...args],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          REDIS_URL: '',
          LOG_LEVEL: 'info',
          PROBES_ENABLED: 'false',
          WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
          ...env,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * One start-up policy for every entry point: PostgreSQL at a closed port is waited for
 * (DATABASE_STARTUP_WAIT_MS, shortened here) with a progress line, then one message naming
 * DATABASE_URL, host and port, exit code 1, no stack.
 */
describe('Start-up with PostgreSQL unreachable (e2e)', () => {
  let port: number;
  let unreachable: Record<string, string>;

  beforeAll(async () => {
    execFileSync(process.execPath, ['-e', "require('./bin/ensure-built').ensureBuilt()"], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    port = await sparePort(); // closed again once chosen: nothing listens there
    unreachable = {
      DATABASE_URL: `postgresql://app:s3cret-password@127.0.0.1:${port}/linkpilot`,
      DATABASE_STARTUP_WAIT_MS: '1500',
    };
  }, 120_000);

  const message = () => `PostgreSQL at 127.0.0.1:${port} (DATABASE_URL) refused the connection`;

  function expectOneActionableFailure(result: Run, output: string): void {
    expect(result.code).toBe(1);
    expect(output).toContain(message());
    expect(output).toContain('retrying for up to 2 s');
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/\n\s+at /); // no stack
    expect(`${result.stdout}${result.stderr}`).not.toContain('s3cret-password');
  }

  it.each([
    ['the server (node dist/main.js, start:prod, the Docker CMD)', 'dist/main.js', []],
    ['npm start (bin/start.js)', 'bin/start.js', []],
  ])('should stop %s with one message', async (_name, script, args: string[]) => {
    const result = await run(script, args, unreachable);
    expectOneActionableFailure(result, result.stdout + result.stderr);
    expect(result.stderr.trim()).toBe(`${message()}.`);
  });

  it('should stop the CLI with one message on stderr', async () => {
    const result = await run(
      'bin/linkpilot.js',
      ['creators', 'create', '--plan', 'free'],
      unreachable,
    );
    expectOneActionableFailure(result, result.stderr);
    expect(result.stdout).toBe('');
  });

  it('should stop the CLI with one JSON error on stdout under --json', async () => {
    const result = await run(
      'bin/linkpilot.js',
      ['creators', 'create', '--plan', 'free', '--json'],
      unreachable,
    );
    expectOneActionableFailure(result, result.stderr);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'DATABASE_UNREACHABLE', message: `${message()}.` },
    });
  });

  it('should stop the click worker (clicks consume) with one message', async () => {
    const result = await run('bin/linkpilot.js', ['clicks', 'consume', '--once', '--json'], {
      ...unreachable,
      // Never reached: the worker opens the database first.
      REDIS_URL: `redis://127.0.0.1:${port}`,
    });
    expectOneActionableFailure(result, result.stderr);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'DATABASE_UNREACHABLE', message: `${message()}.` },
    });
  });
});

/** PostgreSQL only: the embedded default migrates itself. */
(isEmbedded ? describe.skip : describe)('Start-up on an unmigrated database (e2e)', () => {
  beforeAll(() => {
    execFileSync(process.execPath, ['-e', "require('./bin/ensure-built').ensureBuilt()"], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }, 120_000);

  it('should stop a server started without --migrate on a database with pending migrations', async () => {
    const name = `linkpilot_unmigrated_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      const url = new URL(process.env.DATABASE_URL ?? '');
      url.pathname = `/${name}`;
      const result = await run('dist/main.js', [], { DATABASE_URL: url.toString() });
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        'The database (DATABASE_URL) has pending migrations: run `npm run db:migrate`, then start again.',
      );
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
