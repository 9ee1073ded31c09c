// `npm run test:cluster`: the redirect, analytics and rate-limit e2e suites again, with the
// app on a Redis Cluster of three masters that the global setup starts on spare ports and
// stops afterwards (test/support/redis-cluster.ts), never the machine's shared Redis. The
// database is the run's as in `npm test` (DATABASE_URL, or the embedded PGlite). `npm test`
// itself checks the cluster with a spec of its own (test/e2e/redis-cluster.e2e-spec.ts).
const { projects, testTimeout } = require('./jest.config.js');

const e2e = projects.find((project) => project.displayName === 'e2e');

/** @type {import('jest').Config} */
module.exports = {
  ...e2e,
  displayName: 'e2e on Redis Cluster',
  testTimeout,
  testMatch: [
    'redirect',
    'analytics',
    'unique-visitors',
    'visitor-sketches',
    'rate-limit',
    'throttler',
    'idempotency',
  ].map((suite) => `<rootDir>/test/e2e/${suite}.e2e-spec.ts`),
  globalSetup: '<rootDir>/test/support/cluster-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/cluster-global-teardown.ts',
};
