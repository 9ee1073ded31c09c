// `npm run chaos`: the fault-injection run (docs/operations.md "Durability"), apart from `npm test`: it
// takes a few minutes and drives the built service (dist/) as separate processes.
/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': 'ts-jest' },
  testMatch: ['<rootDir>/test/chaos/**/*.chaos-spec.ts'],
  testTimeout: 15 * 60 * 1000,
};
