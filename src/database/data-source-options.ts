import { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { ENTITIES } from '../entities';

/** One definition for the app, the CLI and the tests: schema only ever changes by migration. */
export function buildDataSourceOptions(url: string, poolSize: number): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    // Only errors: the CLI's stdout must stay one JSON object; callers report what they applied.
    logging: ['error'],
    extra: { max: poolSize, connectionTimeoutMillis: 5000 },
  };
}
