import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { projectRoot } from '../../src/common/project-root';
import { pollUntil } from '../support/poll';

const ROOT = projectRoot();
const ENSURE_BUILT = "require('./bin/ensure-built').ensureBuilt()";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function ensureBuilt(cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', ENSURE_BUILT], { cwd }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Makes `file` look edited after dist/ was built. */
function touchLater(file: string): void {
  const later = new Date(Date.now() + 60_000);
  fs.utimesSync(file, later, later);
}

/**
 * What `npm start` and `npx linkpilot` print while bin/ensure-built.js compiles dist/: a line
 * before the silent compiler run and one after. A project of one source file, built by the
 * repository's own bin/ensure-built.js and TypeScript, keeps each build to seconds.
 */
describe('The build before npm start (bin/ensure-built.js)', () => {
  let project: string;

  beforeEach(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-build-'));
    fs.mkdirSync(path.join(project, 'bin'));
    fs.copyFileSync(
      path.join(ROOT, 'bin/ensure-built.js'),
      path.join(project, 'bin/ensure-built.js'),
    );
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'commonjs',
          target: 'ES2022',
          lib: ['ES2022'],
          // No declaration files to read or check: a build of a second or two.
          types: [],
          skipLibCheck: true,
          rootDir: '.',
          outDir: 'dist',
        },
      }),
    );
    fs.writeFileSync(
      path.join(project, 'tsconfig.build.json'),
      JSON.stringify({ extends: './tsconfig.json', include: ['src'] }),
    );
    fs.mkdirSync(path.join(project, 'src'));
    fs.writeFileSync(path.join(project, 'src/main.ts'), 'export const started = true;\n');
  });
  afterEach(() => fs.rmSync(project, { recursive: true, force: true }));

  it('should say it builds on the first run, and when it is done', async () => {
    const first = await ensureBuilt(project);
    expect(first).toMatchObject({ code: 0, stdout: '' });
    expect(first.stderr).toMatch(
      /^linkpilot: building dist\/ \(first run, about half a minute\)…\nlinkpilot: built dist\/ in \d+\.\d s\n$/,
    );
    expect(fs.existsSync(path.join(project, 'dist/main.js'))).toBe(true);

    expect(await ensureBuilt(project)).toEqual({ code: 0, stdout: '', stderr: '' });

    touchLater(path.join(project, 'src/main.ts'));
    const again = await ensureBuilt(project);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/^linkpilot: building dist\/ \(sources changed, /);
    expect(again.stderr).toMatch(/\nlinkpilot: built dist\/ in \d+\.\d s\n$/);
  }, 120_000);

  it('should say it waits while another process holds the build', async () => {
    fs.mkdirSync(path.join(project, '.build-lock'));
    let stderr = '';
    const waiter = spawn(process.execPath, ['-e', ENSURE_BUILT], { cwd: project });
    waiter.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => waiter.once('exit', resolve));

    await pollUntil(
      () => Promise.resolve(stderr),
      (text) => text.includes('waiting for another process to finish building dist/…'),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(stderr).not.toContain('building dist/ (');
    fs.rmSync(path.join(project, '.build-lock'), { recursive: true });

    expect(await exited).toBe(0);
    expect(stderr.match(/waiting for another process/g)).toHaveLength(1);
    expect(stderr).toMatch(/\nlinkpilot: built dist\/ in \d+\.\d s\n$/);
  }, 120_000);

  it('should use dist/ as it is where there are no sources (the Docker image)', async () => {
    expect((await ensureBuilt(project)).code).toBe(0);
    fs.rmSync(path.join(project, 'src'), { recursive: true });
    touchLater(path.join(project, 'tsconfig.json'));

    expect(await ensureBuilt(project)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(fs.existsSync(path.join(project, 'dist/src/main.js'))).toBe(true);
  }, 120_000);
});
