import { DataSource, QueryRunner } from 'typeorm';
import { loadConfig } from '../../src/config/env';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { ENTITIES } from '../../src/entities';

/**
 * Runs `work` in a transaction of its own that is always rolled back: for suites that change
 * rows every server of the run reads (plans, the edge-profile change log), so no other suite
 * sees them.
 */
export async function inRolledBackTransaction(
  dataSource: DataSource,
  work: (runner: QueryRunner) => Promise<void>,
): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.startTransaction();
  try {
    await work(runner);
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}

/**
 * Runs `work` as a migration runs (a connection of its own, no serving statement timeout), in a
 * transaction always rolled back: for tests of a migration's up and down on the shared database.
 */
export async function inRolledBackMigration(
  work: (runner: QueryRunner) => Promise<void>,
): Promise<void> {
  const { database } = loadConfig(process.env);
  const unbounded = new DataSource(buildDataSourceOptions(database.url ?? '', 1, ENTITIES));
  await unbounded.initialize();
  try {
    await inRolledBackTransaction(unbounded, work);
  } finally {
    await unbounded.destroy();
  }
}
