/**
 * The module map the build enforces (docs/architecture.md "Architecture"), in `npm run check`.
 *
 * LAYERS lists the folders of src from the bottom up: a folder may import its own files and
 * those of folders below it, never above. That makes the folder graph acyclic by construction
 * (the file-level no-circular rule cannot see a cycle that runs through several folders).
 * Root files (main.ts, bootstrap.ts, app.module.ts, entities.ts) wire everything and sit on top.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const LAYERS = [
  // Foundations: no feature module below them.
  'common',
  'config',
  // Prometheus metrics: counted by features, served on METRICS_PORT.
  'metrics',
  'kv',
  'database',
  'idempotency',
  // Reference data and pure decision code.
  'networks',
  'fx',
  'merchants',
  'routing',
  // The webhook outbox's writer: below every feature that reports an event.
  'events',
  // Features, each reaching only the ones listed before it.
  'analytics',
  'rate-limit',
  // Creators, plans and billing periods; the account endpoint asks clicks for usage through
  // ClickUsage, which the app wires (account/click-usage.ts).
  'account',
  // The click's write side: admission, quota, edge windows, the outage spool and its replay.
  'clicks',
  'auth',
  'links',
  'probes',
  'sandbox',
  // Endpoints and delivery of the outbox (above probes, whose SSRF guard it uses).
  'webhooks',
  'redirect',
  'health',
  'cli',
];

/** Pure code (pure-code.cjs, shared with ESLint): plain data in, plain data out. */
const PURE_PATHS = require('./pure-code.cjs').purePathPatterns;

const layerRules = LAYERS.map((folder, index) => ({
  name: `layer-${folder}`,
  severity: 'error',
  comment: `src/${folder} may import only folders below it: ${LAYERS.slice(0, index).join(', ') || 'none'}.`,
  from: { path: `^src/${folder}/` },
  to: { path: `^src/(${LAYERS.slice(index + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles hide a wrong module boundary; move the logic or pass a callback.',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'no-feature-in-foundations',
      severity: 'error',
      comment:
        'common, config, kv and database import no root wiring file (which names every feature).',
      from: { path: '^src/(common|config|kv)/' },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    {
      name: 'repositories-stay-home',
      severity: 'error',
      comment:
        "A module's repository is its own: other modules read its tables through its exported services.",
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/([^/]+)/.*\\.repository\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'controllers-and-jobs-are-leaves',
      severity: 'error',
      comment: 'Only its module imports a controller or a job; they call services.',
      from: { path: '^src/', pathNot: '\\.module\\.ts$' },
      to: { path: '\\.(controller|job)\\.ts$' },
    },
    {
      name: 'pure-code-stays-pure',
      severity: 'error',
      comment: 'Pure code imports no framework, ORM, Redis client, HTTP server or database driver.',
      from: { path: PURE_PATHS },
      to: {
        path: 'node_modules/(@nestjs|typeorm|ioredis|fastify|@fastify|pg|undici)/',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
