// Type-aware lint, zero warnings (npm run check runs it with --max-warnings 0; CI never --fix).
// Import cycles are checked by dependency-cruiser (.dependency-cruiser.cjs).
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import jest from 'eslint-plugin-jest';
import prettier from 'eslint-config-prettier';
import pureCode from './pure-code.cjs';

/** Pure code (pure-code.cjs): no framework, ORM, Redis client or HTTP server imports. */
const PURE_CODE = pureCode.pureGlobs;

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'examples/dist/**',
      'node_modules/**',
      'coverage/**',
      'data/**',
      'bin/**',
      'bench/**',
      'scripts/**/*.js',
      '*.js',
      '*.mjs',
      '*.cjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/require-await': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      eqeqeq: ['error', 'always'],
      curly: ['error', 'multi-line'],
      'no-console': 'error',
    },
  },
  {
    files: PURE_CODE,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@nestjs/*'], message: 'Pure code: no framework imports.' },
            {
              group: ['typeorm', 'ioredis', 'fastify', '@fastify/*', 'pg', 'undici'],
              message: 'Pure code: no I/O imports.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts'],
    plugins: { jest },
    rules: {
      ...jest.configs['flat/recommended'].rules,
      // STYLE.md: describe(Thing.name), which the rule cannot see is a string.
      'jest/valid-title': ['error', { ignoreTypeOfDescribeName: true }],
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      'jest/valid-expect': ['error', { alwaysAwait: true }],
      'jest/expect-expect': [
        'error',
        { assertFunctionNames: ['expect', 'request.**.expect', '**.expect'] },
      ],
      // Response bodies are untyped JSON by nature; tests assert their shape instead.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
