// The package exposes contrib extensions through subpath exports, which TypeScript's classic
// `node` module resolution (kept for CommonJS Nest) does not read; declared here instead.
declare module '@electric-sql/pglite/contrib/pg_trgm' {
  import type { Extension } from '@electric-sql/pglite';
  export const pg_trgm: Extension;
}
