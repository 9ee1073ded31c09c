import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClickPipelineModule } from '../analytics/click-pipeline.module';
import { CLICK_BATCH_SIZE, ClickStreamConsumer } from '../analytics/click-stream.consumer';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { CommonModule } from '../common/common.module';
import { ConfigModule } from '../config/config.module';
import { AppConfig } from '../config/env';
import { DatabaseModule } from '../database/database.module';
import { openDatabase } from '../database/open-database';
import { KvModule } from '../kv/kv.module';

/** The click pipeline alone: streams in, the clicks table out; no HTTP, no cron jobs. */
@Module({})
class ClickWorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ClickWorkerModule,
      imports: [
        // The worker drives the consumer itself (below), so the timer of a server is off.
        ConfigModule.forRoot({ ...config, clicks: { ...config.clicks, consumerEnabled: false } }),
        CommonModule.forRoot(),
        DatabaseModule,
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
}

/**
 * `linkpilot clicks consume`: moves clicks from the Redis streams to PostgreSQL outside the
 * serving processes, so that edge nodes run with CLICK_CONSUMER_ENABLED=false and their
 * event loops never stop for a batch (DESIGN section 3: a consumer group of any size).
 */
export async function runClickWorker(
  config: AppConfig,
  run: ClickWorkerRun,
): Promise<{ written: number }> {
  if (config.kv.url === null) {
    throw new AppError(
      ErrorCode.KV_ERROR,
      'clicks consume needs REDIS_URL: without it the click stream lives inside the server process.',
    );
  }
  const database = await openDatabase(config.database);
  const context = await NestFactory.createApplicationContext(
    ClickWorkerModule.forRoot({ ...config, database: database.config }),
    { logger: ['fatal', 'error', 'warn'] },
  );
  let isStopping = false;
  void run.stop.then(() => (isStopping = true));
  let written = 0;
  try {
    const consumer = context.get(ClickStreamConsumer);
    while (!isStopping) {
      const pass = await consumer.drainOnce();
      written += pass;
      if (pass === 0 && run.once) break;
      // A backlog is drained pass after pass; otherwise batches gather for a poll interval
      // (a few large inserts a second, not one commit per handful of clicks).
      if (pass < CLICK_BATCH_SIZE) {
        await Promise.race([run.stop, sleep(config.clicks.pollIntervalMs)]);
      }
    }
    return { written };
  } finally {
    await context.close();
    await database.handle.close();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
