/**
 * Module-graph rules that ESLint cannot check cheaply: no import cycles (STYLE.md: needing
 * forwardRef means a wrong boundary). Runs in `npm run check`.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles hide a wrong module boundary; move the logic or pass a callback.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
