import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { projectRoot } from '../../src/common/project-root';

const ROOT = projectRoot();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npx linkpilot …` as an operator runs it: the built CLI, a process of its own, from `cwd`. */
function linkpilot(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'bin/linkpilot.js'), ...args],
      { cwd, env: { ...process.env, LOG_LEVEL: 'fatal', ...env } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('The CLI run from another folder (e2e)', () => {
  let elsewhere: string;

  beforeAll(() => {
    // What operators run: dist/, built here when missing or stale.
    execFileSync(process.execPath, ['-e', "require('./bin/ensure-built').ensureBuilt()"], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  });
  beforeEach(() => {
    elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-elsewhere-'));
  });
  afterEach(() => fs.rmSync(elsewhere, { recursive: true, force: true }));

  it('should print the help when given no arguments', async () => {
    const run = await linkpilot(elsewhere, []);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: linkpilot \[options\] \[command\]/);
    expect(run.stdout).toContain('creators');
    expect(run.stderr).toBe('');
  });

  it('should print the version of package.json with --version', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const run = await linkpilot(elsewhere, ['--version']);
    expect(run).toEqual({ code: 0, stdout: `${manifest.version as string}\n`, stderr: '' });
  });

  it("should work on the run's database and leave the folder it runs from untouched", async () => {
    const run = await linkpilot(elsewhere, [
      'creators',
      'create',
      '--plan',
      'free',
      '--no-network-accounts',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ creator: { plan: 'free' } });
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it('should refuse, creating nothing, when DATA_DIR holds no embedded database', async () => {
    const relative = `absent-${path.basename(elsewhere)}`;
    const run = await linkpilot(elsewhere, ['creators', 'create', '--plan', 'free', '--json'], {
      DATABASE_URL: '',
      DATA_DIR: relative,
    });
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('DATABASE_NOT_FOUND');
    // A relative DATA_DIR is from the project root, not from where the command runs.
    expect(error.message).toContain(`${path.join(ROOT, relative)} (DATA_DIR)`);
    expect(error.message).toContain('npx linkpilot db migrate');
    expect(fs.existsSync(path.join(ROOT, relative))).toBe(false);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});
