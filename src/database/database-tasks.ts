import { DataSource } from 'typeorm';
import { DatabaseConfig } from '../config/env';
import { buildDataSourceOptions, EntityList } from './data-source-options';
import { openDatabase, OpenDatabaseOptions } from './open-database';

/** Applies pending migrations; returns the names applied (none when up to date). */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  return applied.map((migration) => migration.name);
}

interface StandaloneOptions extends OpenDatabaseOptions {
  /** What the work maps (the seeds need the app's entities); default none, for raw SQL. */
  entities?: EntityList;
}

/**
 * Opens the configured database (embedded when DATABASE_URL is unset), runs `work` on a
 * standalone DataSource and closes everything, whatever happens.
 */
export async function withDataSource<T>(
  config: DatabaseConfig,
  work: (dataSource: DataSource) => Promise<T>,
  options: StandaloneOptions = {},
): Promise<T> {
  const database = await openDatabase(config, options);
  try {
    const dataSource = new DataSource(
      buildDataSourceOptions(
        database.config.url ?? '',
        database.config.poolSize,
        options.entities ?? [],
      ),
    );
    await dataSource.initialize();
    try {
      return await work(dataSource);
    } finally {
      await dataSource.destroy();
    }
  } finally {
    await database.handle.close();
  }
}
