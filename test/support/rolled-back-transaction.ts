import type { DataSource, QueryRunner } from 'typeorm';

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
