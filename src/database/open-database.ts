import { DatabaseConfig } from '../config/env';
import { waitForDatabase } from './database-reachability';
import {
  DatabaseHandle,
  EMBEDDED_POOL_SIZE,
  embeddedDatabaseExists,
  openEmbeddedPostgres,
} from './embedded-postgres';

/** A command that only uses a database found none to use (the embedded default's folder is empty). */
export class DatabaseNotFoundError extends Error {
  readonly code = 'DATABASE_NOT_FOUND';
  constructor(dataDir: string) {
    super(
      `No database: DATABASE_URL is unset and there is no embedded database under ${dataDir} (DATA_DIR). ` +
        'Start the server once (`npm start`) or run `npx linkpilot db migrate` to create it, or set DATABASE_URL.',
    );
    this.name = 'DatabaseNotFoundError';
  }
}

export interface OpenDatabaseOptions {
  /**
   * Create the embedded database when DATA_DIR has none (the server, `db migrate`); else
   * refuse with DatabaseNotFoundError, so a command run with the wrong DATA_DIR leaves
   * no empty database behind. Default true.
   */
  createEmbedded?: boolean;
  /** A line while waiting for PostgreSQL at start (DATABASE_STARTUP_WAIT_MS). */
  onProgress?: (line: string) => void;
}

/**
 * The one place that chooses the database: DATABASE_URL when set, else the embedded PGlite
 * under DATA_DIR. Returns the config to build the app with (url always set) and the handle.
 * PGlite serves one session, so the analytics reads get no pool of their own there: a second
 * pool's connections would interleave their messages with the serving pool's.
 */
export async function openDatabase(
  config: DatabaseConfig,
  options: OpenDatabaseOptions = {},
): Promise<{ config: DatabaseConfig; handle: DatabaseHandle }> {
  if (config.url !== null) {
    // One start-up policy for every entry point: a bounded wait, then one actionable error.
    await waitForDatabase(config.url, {
      waitMs: config.startupWaitMs,
      onProgress: options.onProgress,
    });
    return {
      config,
      handle: { url: config.url, isOwner: false, close: () => Promise.resolve() },
    };
  }
  if (options.createEmbedded === false && !embeddedDatabaseExists(config.dataDir)) {
    throw new DatabaseNotFoundError(config.dataDir);
  }
  const handle = await openEmbeddedPostgres(config.dataDir);
  return {
    config: {
      ...config,
      url: handle.url,
      poolSize: Math.min(config.poolSize, EMBEDDED_POOL_SIZE),
      analytics: { ...config.analytics, poolSize: 0 },
    },
    handle,
  };
}
