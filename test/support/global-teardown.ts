import * as fs from 'node:fs';
import type { DatabaseHandle } from '../../src/database/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  const embedded = (
    globalThis as { __linkpilotTestDb?: { handle: DatabaseHandle; dataDir: string } }
  ).__linkpilotTestDb;
  if (embedded === undefined) return;
  await embedded.handle.close();
  fs.rmSync(embedded.dataDir, { recursive: true, force: true });
}
