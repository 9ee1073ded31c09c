import { DatabaseConfig } from '../config/env';
import { DatabaseHandle, EMBEDDED_POOL_SIZE, openEmbeddedPostgres } from './embedded-postgres';

/**
 * The one place that chooses the database: DATABASE_URL when set, else the embedded PGlite
 * under DATA_DIR. Returns the config to build the app with (url always set) and the handle.
 * PGlite serves one session, so the analytics reads get no pool of their own there: a second
 * pool's connections would interleave their messages with the serving pool's.
 */
export async function openDatabase(
  config: DatabaseConfig,
): Promise<{ config: DatabaseConfig; handle: DatabaseHandle }> {
  if (config.url !== null) {
    return {
      config,
      handle: { url: config.url, isOwner: false, close: () => Promise.resolve() },
    };
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
