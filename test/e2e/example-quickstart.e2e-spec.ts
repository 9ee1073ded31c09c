import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { projectRoot } from '../../src/common/project-root';
import { createCreatorWithKey } from '../factories/creator.factory';
import { startTestApp, TestApp } from '../support/test-app';

const ROOT = projectRoot();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * `npm run example` as the README and examples/quickstart.ts document it: tsc compiles
 * examples/ with its own tsconfig.json, then node runs the quickstart against a server.
 */
describe('The quickstart example, npm run example (e2e)', () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}/v1`;
  });
  afterAll(() => t.close());

  it('should compile, create a link, list it and read the summary', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const result = await run('npm', ['run', '--silent', 'example'], {
      LINKPILOT_API_URL: baseUrl,
      LINKPILOT_API_KEY: creator.apiKey,
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });

    const created = /^created (\S+): (\S+) -> (\S+)$/m.exec(result.stdout);
    expect(created).not.toBeNull();
    const [, linkId, linkpilotUrl] = created as RegExpExecArray;
    expect(linkpilotUrl).toMatch(new RegExp(`/r/${linkId}$`));
    expect(result.stdout).toMatch(new RegExp(`^newest links: ${linkId}(, |$)`, 'm'));
    expect(result.stdout).toMatch(/^\d{4}-\d\d-\d\d\S*\.\.\S+: 0 clicks$/m);

    const stored = await t.http
      .get(`/v1/links/${linkId}`)
      .set('Authorization', creator.authorization);
    expect(stored.status).toBe(200);
  }, 150_000);

  it('should say which variable to set when there is no key, and exit 1', async () => {
    // Compiled by the test above; runs the output as `npm run example` does.
    const result = await run(process.execPath, [path.join(ROOT, 'examples/dist/quickstart.js')], {
      LINKPILOT_API_URL: baseUrl,
      LINKPILOT_API_KEY: '',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Set LINKPILOT_API_KEY');
  });
});
