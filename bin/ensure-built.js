'use strict';
// Builds dist/ when it is missing or older than any source, so `npm start` and
// `npx linkpilot` work right after `npm ci` and after every edit.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const marker = path.join(root, 'dist', 'src', 'main.js');
const sourceRoots = ['src', 'migrations', 'seeds', 'tsconfig.json', 'tsconfig.build.json'];

function newestMtimeMs(entry) {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs
    .readdirSync(entry)
    .reduce(
      (newest, name) => Math.max(newest, newestMtimeMs(path.join(entry, name))),
      stat.mtimeMs,
    );
}

function isBuilt() {
  const built = fs.statSync(marker, { throwIfNoEntry: false });
  // The Docker image ships dist/ without src/ or a compiler (`docker compose exec app npx
  // linkpilot …`): there is nothing to rebuild from, whatever the copied files' times say.
  if (!fs.existsSync(path.join(root, 'src'))) return built !== undefined;
  const newestSource = Math.max(
    ...sourceRoots.map((entry) => newestMtimeMs(path.join(root, entry))),
  );
  return built !== undefined && built.mtimeMs >= newestSource;
}

function ensureBuilt() {
  if (isBuilt()) return;
  // Several processes may find dist/ stale at once (e2e suites that run the built server in
  // parallel, `npm start` beside `npx linkpilot`): one builds, the others wait and reuse it,
  // rather than each deleting dist/ under the others.
  withBuildLock(() => {
    if (isBuilt()) return;
    // The compiler runs for tens of seconds and prints nothing while it works: say what is
    // going on before, and that it is over after, so a first `npm start` does not look hung.
    const reason = fs.existsSync(marker) ? 'sources changed' : 'first run';
    say(`building dist/ (${reason}, about half a minute)…`);
    const started = process.hrtime.bigint();
    build();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    say(`built dist/ in ${seconds.toFixed(1)} s`);
  });
}

/** Progress goes to stderr: stdout stays the command's own (`npx linkpilot … --json`). */
function say(line) {
  process.stderr.write(`linkpilot: ${line}\n`);
}

const lockDir = path.join(root, '.build-lock');
/** A lock older than this was left by a build that died: taken over. */
const STALE_LOCK_MS = 5 * 60_000;

function withBuildLock(work) {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  let waiting = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const held = fs.statSync(lockDir, { throwIfNoEntry: false });
      if (held !== undefined && Date.now() - held.mtimeMs > STALE_LOCK_MS) {
        fs.rmSync(lockDir, { recursive: true, force: true });
      } else {
        if (!waiting) say('waiting for another process to finish building dist/…');
        waiting = true;
        Atomics.wait(sleeper, 0, 0, 250);
      }
    }
  }
  try {
    work();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

/** `npm run build`: compile to dist/, plus the `dist/main.js` entry of docs/design.md section 7. */
function build() {
  fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  // tsc emits dist/src/main.js (the repository is its root: migrations/ and seeds/ sit beside
  // src/); `node dist/main.js` is the documented entry.
  fs.writeFileSync(
    path.join(root, 'dist', 'main.js'),
    "'use strict';\nrequire('./src/main.js');\n",
  );
  // tsc leaves unchanged outputs untouched; stamp the marker so the next run skips the build.
  fs.utimesSync(marker, new Date(), new Date());
}

module.exports = { ensureBuilt, build };
