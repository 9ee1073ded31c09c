// Two projects: unit specs (beside the code, and in test/contract the specs that cross module
// boundaries, such as the key-value store contract), and e2e specs that boot the real app.
// ts-jest transpiles file by file (tsconfig's isolatedModules): no type-check here, since
// `tsc --noEmit` does that in `npm run check`.
const transform = { '^.+\\.ts$': 'ts-jest' };

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/seeds/**/*.spec.ts',
        '<rootDir>/test/contract/**/*.spec.ts',
      ],
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFiles: ['reflect-metadata'],
    },
  ],
};
