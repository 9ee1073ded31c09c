import type { Command } from 'commander';
import { migrate, withDataSource } from '../../database/database-tasks';
import { seed, SEED_ENTITIES } from '../seed';
import type { CliContext } from './cli-context';

export function registerDbCommands(
  program: Command,
  { config, print, progress }: CliContext,
): void {
  const db = program.command('db').description('Database tasks');
  db.command('migrate')
    .description(
      'Apply pending migrations (idempotent); creates the embedded database when DATABASE_URL is unset and DATA_DIR has none',
    )
    .action(async () =>
      print({
        applied: await withDataSource(config.database, migrate, { onProgress: progress }),
      }),
    );
  db.command('seed')
    .description('Write the reference data (idempotent)')
    .action(async () =>
      print({
        seeded: await withDataSource(config.database, seed, {
          entities: SEED_ENTITIES,
          createEmbedded: false,
          onProgress: progress,
        }),
      }),
    );
}
