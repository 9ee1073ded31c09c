import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { projectRoot } from '../../src/common/project-root';
import { startTestApp, TestApp } from '../support/test-app';

const ROOT = projectRoot();

/** The first bash block under the README's "## First requests" heading. */
function firstRequestsBlock(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## First requests\n'));
  const block = /```bash\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error('README.md: no bash block under "## First requests"');
  return block[1];
}

/**
 * The README's first screen, run as written by bash against a server on a spare port: mint
 * a key with the CLI (`npx linkpilot`), create a link with curl, visit its `/r/` with the
 * browser User-Agent. Only the port changes, and LINK_ID, which a reader copies from the
 * answer, is read from the output so far.
 */
describe('The README first requests, run as written (e2e)', () => {
  let t: TestApp;
  let port: number;
  let work: string;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-readme-'));
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('should mint a key, create a link and get a tagged 302 with the browser User-Agent', async () => {
    const block = firstRequestsBlock();
    expect(block).toContain('npx linkpilot creators create');
    expect(block).toContain('LINK_ID');
    const output = path.join(work, 'output');
    const script = [
      'set -euo pipefail',
      `exec >"${output}"`,
      block
        .replaceAll('http://localhost:3000', `http://127.0.0.1:${port}`)
        .replaceAll(
          'LINK_ID',
          `$(grep -o '"linkId":"[0-9A-Z]*"' "${output}" | head -n 1 | cut -d '"' -f 4)`,
        ),
    ].join('\n');

    const stderr = await new Promise<string>((resolve, reject) => {
      execFile('bash', ['-c', script], { cwd: ROOT, timeout: 120_000 }, (error, _out, err) =>
        error === null ? resolve(err) : reject(new Error(`${error.message}\n${err}`)),
      );
    });

    const text = fs.readFileSync(output, 'utf8');
    const linkId = /"linkId":"([0-9A-Z]+)"/.exec(text)?.[1];
    expect(linkId).toEqual(expect.any(String));
    expect(text).toMatch(
      /302 https:\/\/www\.amazon\.com\/dp\/B09G9FPHY6\?tag=lpdemo-amazonassociates-[0-9a-f]+&/,
    );
    expect(stderr).not.toContain('Error');

    // And the reason the README gives for -A: curl's own User-Agent gets the plain URL.
    const plain = await t.http.get(`/r/${linkId as string}`).set('User-Agent', 'curl/8.5.0');
    expect(plain.status).toBe(302);
    expect(plain.headers.location).toBe('https://www.amazon.com/dp/B09G9FPHY6');
  }, 150_000);
});
