import { DataSourceOptions } from 'typeorm';
import { DatabaseConfig } from '../config/env';
import { buildDataSourceOptions, EntityList } from './data-source-options';

/**
 * The analytics sessions' own settings, on the primary's analytics pool and on every replica's.
 * No parallel workers: a slot is then one backend, at most one core, so ANALYTICS_POOL_SIZE
 * bounds the cores analytics can take from the rest. No JIT: these statements aggregate over
 * many monthly partitions, and compiling each partition's expressions costs more CPU than it
 * saves on scans of this size (the analytics benchmark, docs/benchmarks.md).
 */
const ANALYTICS_SESSION_SETTINGS = { max_parallel_workers_per_gather: '0', jit: 'off' };

/**
 * A pool for the analytics reads at `url` (the primary's, or a replica's): ANALYTICS_POOL_SIZE
 * connections plus `extraConnections` (a replica's lag checks take one of their own, so they
 * never wait behind the reads), ANALYTICS_STATEMENT_TIMEOUT_MS, the sessions above.
 */
export function analyticsPoolOptions(
  url: string,
  config: DatabaseConfig,
  entities: EntityList,
  extraConnections = 0,
): DataSourceOptions {
  return buildDataSourceOptions(url, config.analytics.poolSize + extraConnections, entities, {
    statementTimeoutMs: config.analytics.statementTimeoutMs,
    connectTimeoutMs: config.connectTimeoutMs,
    sessionSettings: ANALYTICS_SESSION_SETTINGS,
  });
}
