import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './bootstrap';
import { createAppLogger, NestPinoLogger } from './common/logging/app-logger';
import { installProcessGuards } from './common/process-guards';
import { ConfigError, loadConfig } from './config/env';
import { migrate, seed, withDataSource } from './database/database-tasks';
import { openDatabase } from './database/open-database';

/** A stopping process exits by then, finished or not (orchestrators kill at 30 s by default). */
const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * `node dist/main.js [--migrate] [--seed]`: serves the API. `npm start` passes both flags
 * so one command prepares the database and serves; `start:prod` expects a migrated database.
 */
async function main(): Promise<void> {
  const logger = new Logger('Main');
  installProcessGuards();
  const config = loadConfig();
  // Lines before the app exists (database start, migrations) go the same way as its own.
  Logger.overrideLogger(new NestPinoLogger(createAppLogger(config.http.logLevel)));
  const database = await openDatabase(config.database);
  if (config.database.url === null) {
    logger.log(`DATABASE_URL unset: embedded PostgreSQL (PGlite) under ${config.database.dataDir}`);
  }
  // The database is prepared before the app starts, so no module ever sees an old schema.
  if (process.argv.includes('--migrate') || process.argv.includes('--seed')) {
    await withDataSource(database.config, async (dataSource) => {
      if (process.argv.includes('--migrate')) {
        logger.log(`Migrations applied: ${(await migrate(dataSource)).length}`);
      }
      if (process.argv.includes('--seed')) {
        logger.log(`Seeds: ${JSON.stringify(await seed(dataSource))}`);
      }
    });
  }
  const app = await createApp({ ...config, database: database.config });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onClose', () => database.handle.close());
  // SIGTERM/SIGINT (enableShutdownHooks): Fastify stops accepting, closes idle keep-alive
  // connections and answers the requests in flight, then the modules stop (click consumer,
  // probes, stores). Whatever still runs after SHUTDOWN_DEADLINE_MS is cut short.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${signal}: shutting down`);
      setTimeout(() => {
        logger.error(`Shutdown not finished after ${SHUTDOWN_DEADLINE_MS} ms: exiting`);
        process.exit(1);
      }, SHUTDOWN_DEADLINE_MS).unref();
    });
  }
  await app.listen(config.http.port, config.http.host);
  logger.log(`Linkpilot listening on ${await app.getUrl()} (API under /v1, docs at /docs)`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `Linkpilot failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
