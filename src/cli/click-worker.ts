import { DynamicModule, LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClickPipelineModule } from '../analytics/click-pipeline.module';
import { ClickStreamConsumer } from '../analytics/click-stream.consumer';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { CommonModule } from '../common/common.module';
import { ConfigModule } from '../config/config.module';
import { AppConfig } from '../config/env';
import { DatabaseModule } from '../database/database.module';
import { ENTITIES } from '../entities';
import { openDatabase } from '../database/open-database';
import { KvModule } from '../kv/kv.module';

/**
 * The click pipeline alone: streams in, the clicks table out; no HTTP, no cron jobs. The
 * consumer polls by itself unless the worker drains once and stops.
 */
@Module({})
class ClickWorkerModule {
  static forRoot(config: AppConfig, isOnce: boolean): DynamicModule {
    return {
      module: ClickWorkerModule,
      imports: [
        ConfigModule.forRoot({ ...config, clicks: { ...config.clicks, consumerEnabled: !isOnce } }),
        CommonModule.forRoot(),
        DatabaseModule.forRoot(ENTITIES),
        KvModule,
        ClickPipelineModule,
      ],
    };
  }
}

export interface ClickWorkerRun {
  /** Resolves to stop: the pass under way finishes (its clicks written and acknowledged) first. */
  stop: Promise<void>;
  /** With `once`, the worker stops by itself when a pass finds the streams empty. */
  once: boolean;
  /** A line while waiting for PostgreSQL at start, as every other entry point prints one. */
  onProgress: (line: string) => void;
  /** The worker's warnings and errors, TypeORM's among them. */
  logger: LoggerService;
}

/**
 * `linkpilot clicks consume`: moves clicks from the Redis streams to PostgreSQL outside the
 * serving processes, so that edge nodes run with CLICK_CONSUMER_ENABLED=false and their
 * event loops never stop for a batch (docs/edge.md "Edge redirector": one consumer group, any number
 * of click workers).
 */
export async function runClickWorker(
  config: AppConfig,
  run: ClickWorkerRun,
): Promise<{ written: number }> {
  if (config.kv.url === null && config.kv.cluster === null) {
    throw new AppError(
      ErrorCode.KV_ERROR,
      'clicks consume needs REDIS_URL or REDIS_CLUSTER_NODES: without either the click stream lives inside the server process.',
    );
  }
  const database = await openDatabase(config.database, {
    createEmbedded: false,
    onProgress: run.onProgress,
  });
  const context = await NestFactory.createApplicationContext(
    ClickWorkerModule.forRoot({ ...config, database: database.config }, run.once),
    { logger: run.logger },
  );
  const consumer = context.get(ClickStreamConsumer);
  let written = 0;
  let isStopping = false;
  void run.stop.then(() => (isStopping = true));
  try {
    if (run.once) {
      let pass: number;
      do {
        pass = await consumer.drainOnce();
        written += pass;
      } while (pass > 0 && !isStopping);
    } else {
      await run.stop;
    }
  } finally {
    // Closing waits for the background pass under way.
    await context.close();
    await database.handle.close();
  }
  return { written: written + consumer.writtenInBackground };
}
