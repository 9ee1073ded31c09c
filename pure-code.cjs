/**
 * Pure code maps plain data to plain data (STYLE.md): it imports no framework, ORM, Redis
 * client, HTTP server or database driver, so it stays testable without any of them. One list
 * for both enforcers: ESLint (eslint.config.mjs) and dependency-cruiser (.dependency-cruiser.cjs).
 * A folder ends with '/'; anything else is one file.
 */
const PURE_CODE = [
  'src/routing/engine/',
  'src/merchants/kb/',
  'src/fx/math/',
  'src/probes/rules/',
  'src/rate-limit/sliding-log.ts',
  'src/rate-limit/sliding-window.script.ts',
  'src/rate-limit/client-address-key.ts',
  'src/clicks/click-admission.ts',
  'src/clicks/click-admission.script.ts',
  'src/clicks/edge-keys.ts',
  'src/account/billing-period.ts',
  'src/analytics/click-streams.ts',
  'src/analytics/click-retention-months.ts',
  'src/analytics/hyperloglog.ts',
  'src/kv/kv-script.ts',
  'src/auth/api-key-format.ts',
  'src/common/net/',
  'src/common/http/cors-origins.ts',
  'src/health/health-status.ts',
  'src/networks/network-ids.ts',
  'src/networks/network-registry.ts',
  'src/redirect/visitor-context.ts',
  'src/redirect/user-agent.ts',
  'src/redirect/click-router.ts',
  'src/redirect/forward-visitor-query.ts',
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

module.exports = {
  PURE_CODE,
  /** ESLint `files` globs. */
  pureGlobs: PURE_CODE.map((entry) => (entry.endsWith('/') ? `${entry}**/*.ts` : entry)),
  /** dependency-cruiser path regexes. */
  purePathPatterns: PURE_CODE.map((entry) =>
    entry.endsWith('/') ? `^${escape(entry)}` : `^${escape(entry)}$`,
  ),
};
