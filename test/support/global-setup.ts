import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../src/config/env';
import { seed, SEED_ENTITIES } from '../../src/cli/seed';
import { migrate, withDataSource } from '../../src/database/database-tasks';
import { EMBEDDED_POOL_SIZE, openEmbeddedPostgres } from '../../src/database/embedded-postgres';

/**
 * Once per run: with DATABASE_URL set (CI), migrate and seed that database; without it,
 * start the embedded PGlite here, in jest's parent process (PGlite's dynamic imports cannot
 * run inside jest's module sandbox), and hand its URL to the test workers.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL === undefined || process.env.DATABASE_URL === '') {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-test-'));
    const handle = await openEmbeddedPostgres(dataDir);
    process.env.DATABASE_URL = handle.url;
    // Test apps get the URL, not the embedded default: give them its pool size too.
    process.env.DATABASE_POOL_SIZE = String(EMBEDDED_POOL_SIZE);
    // ...and no second pool for the analytics reads (openDatabase's rule for PGlite).
    process.env.ANALYTICS_POOL_SIZE = '0';
    (globalThis as { __linkpilotTestDb?: unknown }).__linkpilotTestDb = { handle, dataDir };
  }
  const config = loadConfig(process.env);
  await withDataSource(
    config.database,
    async (dataSource) => {
      await migrate(dataSource);
      await seed(dataSource);
    },
    { entities: SEED_ENTITIES },
  );
}
