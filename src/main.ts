import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from './bootstrap';
import { createAppLogger, NestPinoLogger } from './common/logging/app-logger';
import { installProcessGuards } from './common/process-guards';
import { ConfigError, loadConfig } from './config/env';
import { DatabaseUnreachableError } from './database/database-reachability';
import { seed, SEED_ENTITIES } from './cli/seed';
import { migrate, withDataSource } from './database/database-tasks';
import type { DatabaseHandle } from './database/embedded-postgres';
import { openDatabase } from './database/open-database';
import { assertWebhookKeyConfigured } from './webhooks/webhook-secret-keyring';

/**
 * V8 lets the old generation grow to up to four times what survived the last full collection
 * before collecting again; under the edge's cache churn (records, routes and templates evicted
 * and replaced all the time) that made a server with ~190 MiB live reach 824 MiB resident in
 * the million-link bench. Twice what survived keeps it at 491 MiB, with no loss of throughput
 * there (docs/benchmarks.md "Benchmark"). V8 reads the factor each time it sets the next limit, so setting
 * it here, first thing, covers every way the server is started (npm start, start:prod, Docker).
 * An operator's own value, given as a node flag, is left as given (node refuses V8 flags such
 * as this one in NODE_OPTIONS).
 */
const HEAP_GROWING_FLAG = '--heap-growing-percent';
if (!process.execArgv.some((flag) => flag.startsWith(HEAP_GROWING_FLAG))) {
  setFlagsFromString(`${HEAP_GROWING_FLAG}=100`);
}

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
  // Refused before the database is opened or migrated (createApp checks it too, for tests).
  assertWebhookKeyConfigured(config.webhooks);
  // Lines before the app exists (database start, migrations) go the same way as its own.
  Logger.overrideLogger(new NestPinoLogger(createAppLogger(config.http.logLevel)));
  const database = await openDatabase(config.database, {
    onProgress: (line) => logger.warn(line),
  });
  const isEmbedded = config.database.url === null;
  if (isEmbedded) {
    logger.log(`DATABASE_URL unset: embedded PostgreSQL (PGlite) under ${config.database.dataDir}`);
  }
  // The database is prepared before the app starts, so no module ever sees an old schema. The
  // embedded default is this process's own and migrates itself; a shared PostgreSQL is
  // migrated by its operator (or `--migrate`), never behind their back.
  const shouldMigrate = isEmbedded || process.argv.includes('--migrate');
  await withDataSource(
    database.config,
    async (dataSource) => {
      if (shouldMigrate) {
        logger.log(`Migrations applied: ${(await migrate(dataSource)).length}`);
      } else if (await dataSource.showMigrations()) {
        throw new PendingMigrationsError();
      }
      if (process.argv.includes('--seed')) {
        logger.log(`Seeds: ${JSON.stringify(await seed(dataSource))}`);
      }
    },
    { entities: SEED_ENTITIES },
  );
  const app = await createApp({ ...config, database: database.config });
  exitGracefullyOnSignals(app, database.handle, logger);
  await app.listen(config.http.port, config.http.host);
  // The address as fields: the message's scrubbing would take it for a client's and mask it.
  const { port } = app.getHttpServer().address() as AddressInfo;
  logger.log('Linkpilot listening (API under /v1, docs at /docs)', {
    host: config.http.host,
    port,
    url: await app.getUrl(),
  });
}

/**
 * SIGTERM or SIGINT: the HTTP side first (ShutdownGate: no new connection, a 503 with
 * `Connection: close` for a request on a connection still open, the requests in flight
 * answered on both fronts, so every click admission under way completes and its click is in
 * the stream, idle connections closed), then the modules in Nest's order (the ledger writes
 * its counters, the click consumer finishes its batch, the stores close), then the embedded
 * database (docs/operations.md "Stopping"). Exit 0 when done; 1 when something failed or SHUTDOWN_DEADLINE_MS passed first.
 * A second signal changes nothing.
 */
function exitGracefullyOnSignals(
  app: NestFastifyApplication,
  database: DatabaseHandle,
  logger: Logger,
): void {
  let isStopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (isStopping) return;
    isStopping = true;
    logger.log(`${signal}: shutting down`);
    setTimeout(() => {
      logger.error(`Shutdown not finished after ${SHUTDOWN_DEADLINE_MS} ms: exiting`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    try {
      await app.getHttpAdapter().close();
      await app.close();
      await database.close();
    } catch (error) {
      logger.error('Shutdown failed', error instanceof Error ? error.stack : String(error));
      process.exit(1);
    }
    logger.log('Shut down');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, (received) => void stop(received));
  }
}

/** Started without `--migrate` on a PostgreSQL whose schema is behind this version. */
class PendingMigrationsError extends Error {
  constructor() {
    super(
      'The database (DATABASE_URL) has pending migrations: run `npm run db:migrate`, then start again.',
    );
    this.name = 'PendingMigrationsError';
  }
}

main().catch((error: unknown) => {
  // Known causes get their one actionable line, no stack.
  if (
    error instanceof ConfigError ||
    error instanceof DatabaseUnreachableError ||
    error instanceof PendingMigrationsError
  ) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `Linkpilot failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
