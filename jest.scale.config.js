// `npm run test:scale`: Linkpilot scaled out and failing in parts (docs/scaling.md), apart from
// `npm test`: it starts its own PostgreSQL primary and replica, Redis Cluster, three built app
// nodes (dist/) and HAProxy, and runs for a few minutes.
/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': 'ts-jest' },
  testMatch: ['<rootDir>/test/scale/**/*.scale-spec.ts'],
  testTimeout: 15 * 60 * 1000,
};
