import { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { TypeOrmNestLogger } from './typeorm-logger';

/**
 * The entities a data source maps: the app's list (src/entities.ts, at the root, since it names
 * every feature) or, for a pool opened beside the serving one, the serving one's.
 */
export type EntityList = NonNullable<DataSourceOptions['entities']>;

/** Bounds of a serving pool (DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_CONNECT_TIMEOUT_MS). */
export interface PoolBounds {
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /** Server settings for every session of the pool (`-c name=value` at connection). */
  sessionSettings?: Record<string, string>;
}

/**
 * One definition for the app, the CLI and the tests: schema only ever changes by migration.
 * The app's pool is bounded (`bounds`); migrations and seeds run unbounded.
 */
export function buildDataSourceOptions(
  url: string,
  poolSize: number,
  entities: EntityList,
  bounds?: PoolBounds,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    // Only errors, through the app's logger (never stdout's plain text: the server's lines are
    // JSON, the CLI's stdout is one JSON object); callers report what they applied.
    logging: ['error'],
    logger: new TypeOrmNestLogger(),
    extra: {
      max: poolSize,
      connectionTimeoutMillis: bounds?.connectTimeoutMs ?? 5000,
      ...(bounds === undefined
        ? {}
        : {
            // Server-side cancel, and a client-side timer a second later for a database that
            // accepts connections but no longer answers (a cancel would never arrive).
            statement_timeout: bounds.statementTimeoutMs,
            query_timeout: bounds.statementTimeoutMs + 1000,
            ...(bounds.sessionSettings === undefined
              ? {}
              : {
                  options: Object.entries(bounds.sessionSettings)
                    .map(([name, value]) => `-c ${name}=${value}`)
                    .join(' '),
                }),
          }),
    },
  };
}
