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
  // Branded domains: links take one, the edge resolves their slugs.
  'domains',
  'links',
  // Conversions in (API, postbacks, import): attributed to clicks, reported to webhooks.
  'conversions',
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
        'common, config, metrics, kv and database import no root wiring file (src/entities.ts, ' +
        "app.module.ts: they name every feature) and no seed (seeds write features' rows): the " +
        'root and the CLI pass the entity list in, and the CLI runs the seeds.',
      from: { path: '^src/(common|config|metrics|kv|database)/' },
      to: { path: ['^src/[^/]+\\.ts$', '^seeds/'] },
    },
    {
      name: 'sql-only-in-repositories',
      severity: 'error',
      comment:
        'Every SQL statement lives in the repository of the table it touches. A file that can ' +
        'import typeorm or @nestjs/typeorm can hold a DataSource, EntityManager or Repository and ' +
        'run SQL, so only these may: *.repository.ts; src/database/ (the data sources, pools, ' +
        'advisory locks, the opaque Transaction); the root wiring files (bootstrap.ts reads the ' +
        'pool for metrics, main.ts prepares the database); and specs. Entity files and modules ' +
        'are narrower exceptions, in the two rules below. migrations/ and seeds/ are outside src/.',
      from: {
        path: '^src/',
        pathNot: [
          '\\.repository\\.ts$',
          '^src/database/',
          '^src/[^/]+\\.ts$',
          '\\.spec\\.ts$',
          '\\.entity\\.ts$',
          '\\.module\\.ts$',
        ],
      },
      to: { path: 'node_modules/(typeorm|@nestjs/typeorm)/' },
    },
    {
      name: 'entities-only-declare',
      severity: 'error',
      comment:
        "An entity file needs typeorm's column decorators, never Nest's injection of a data " +
        'source or repository.',
      from: { path: '\\.entity\\.ts$' },
      to: { path: 'node_modules/@nestjs/typeorm/' },
    },
    {
      name: 'modules-only-register',
      severity: 'error',
      comment:
        'A module registers its entities (TypeOrmModule.forFeature from @nestjs/typeorm) and ' +
        'runs no SQL: no typeorm import.',
      from: { path: '\\.module\\.ts$', pathNot: '^src/database/' },
      to: { path: 'node_modules/typeorm/' },
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
