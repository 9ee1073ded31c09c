import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SlotQueue } from '../common/async/slot-queue';
import { AppError } from '../common/errors/app-error';
import { isStatementTimeout } from '../common/errors/database-unavailable';
import { ErrorCode } from '../common/errors/error-code';
import { InjectConfig } from '../config/config.module';
import { DatabaseConfig } from '../config/env';
import { buildDataSourceOptions } from '../database/data-source-options';

/** Seconds a caller refused by the analytics bounds should wait before asking again. */
const ANALYTICS_RETRY_AFTER_SECONDS = 2;

/**
 * The analytics sessions' own settings. No parallel workers: a slot is then one backend, at
 * most one core, so ANALYTICS_POOL_SIZE bounds the cores analytics can take from the rest.
 * No JIT: these statements aggregate over many monthly partitions, and compiling each
 * partition's expressions costs more CPU than it saves on scans of this size (the analytics
 * benchmark, docs/benchmarks.md).
 */
const ANALYTICS_SESSION_SETTINGS = { max_parallel_workers_per_gather: '0', jit: 'off' };

/**
 * Where the analytics reads run, apart from the serving pool that the edge (link records on a
 * cache miss, creator profiles), the click writes and the rest of the API share: a pool of
 * their own of ANALYTICS_POOL_SIZE connections with its own statement timeout, and as many
 * slots, so no more statements than connections are ever under way and none waits inside the
 * pool. A read finding every slot taken waits in line for ANALYTICS_QUEUE_TIMEOUT_MS, then
 * answers 503 ANALYTICS_BUSY with Retry-After: a burst of dashboards queues briefly and is
 * turned away, it never piles up in PostgreSQL, and the edge never waits behind it.
 *
 * With ANALYTICS_POOL_SIZE=0 (always on PGlite, which serves one session) the reads run on
 * the serving pool, one at a time: the edge then waits behind at most one analytics statement.
 */
@Injectable()
export class AnalyticsDatabase implements OnModuleDestroy {
  private readonly slots: SlotQueue;
  /** The connection source of the slot the current call holds, if it holds one. */
  private readonly held = new AsyncLocalStorage<DataSource>();
  /** Their own pool, opened by the first read (the CLI builds this module and never reads). */
  private opening: Promise<DataSource> | null = null;

  constructor(
    @InjectDataSource() private readonly serving: DataSource,
    @InjectConfig('database') private readonly config: DatabaseConfig,
  ) {
    const { poolSize, queueTimeoutMs } = config.analytics;
    this.slots = new SlotQueue(Math.max(1, poolSize), queueTimeoutMs);
  }

  /**
   * Runs `work` in one slot; a read inside another (a service holding one slot for a whole
   * call) runs in the slot already held, so a call is admitted once and never queues behind
   * itself. `work` runs its statements one after another: a slot is one connection.
   */
  async read<T>(work: (source: DataSource) => Promise<T>): Promise<T> {
    const heldSource = this.held.getStore();
    if (heldSource !== undefined) return work(heldSource);
    const release = await this.slots.acquire();
    if (release === null) throw this.busyError();
    try {
      const source = await this.source();
      return await this.held.run(source, () => work(source));
    } catch (error) {
      throw isStatementTimeout(error) ? this.timeoutError() : error;
    } finally {
      release();
    }
  }

  async onModuleDestroy(): Promise<void> {
    const opening = this.opening;
    this.opening = null;
    await opening?.then(
      (source) => source.destroy(),
      () => undefined,
    );
  }

  private source(): Promise<DataSource> {
    const { url, connectTimeoutMs, analytics } = this.config;
    if (analytics.poolSize === 0) return Promise.resolve(this.serving);
    this.opening ??= new DataSource(
      buildDataSourceOptions(url ?? '', analytics.poolSize, {
        statementTimeoutMs: analytics.statementTimeoutMs,
        connectTimeoutMs,
        sessionSettings: ANALYTICS_SESSION_SETTINGS,
      }),
    )
      .initialize()
      .catch((error: unknown) => {
        // Not remembered: the next read tries again (PostgreSQL may be back).
        this.opening = null;
        throw error;
      });
    return this.opening;
  }

  private busyError(): AppError {
    const { poolSize, queueTimeoutMs } = this.config.analytics;
    const capacity =
      poolSize === 0
        ? 'one runs at a time on the serving pool (ANALYTICS_POOL_SIZE=0)'
        : `${poolSize} run at once on this server (ANALYTICS_POOL_SIZE)`;
    return busy(
      `Analytics reads are at capacity: ${capacity}, and none finished within ` +
        `${queueTimeoutMs} ms (ANALYTICS_QUEUE_TIMEOUT_MS). Retry in ` +
        `${ANALYTICS_RETRY_AFTER_SECONDS} seconds.`,
    );
  }

  private timeoutError(): AppError {
    const { statementTimeoutMs, analytics } = this.config;
    const [limitMs, variable] =
      analytics.poolSize === 0
        ? [statementTimeoutMs, 'DATABASE_STATEMENT_TIMEOUT_MS']
        : [analytics.statementTimeoutMs, 'ANALYTICS_STATEMENT_TIMEOUT_MS'];
    return busy(
      `This analytics read ran longer than ${limitMs} ms (${variable}) and was cancelled. ` +
        `Retry in ${ANALYTICS_RETRY_AFTER_SECONDS} seconds, or narrow the request ` +
        '(a shorter period, one link).',
    );
  }
}

function busy(message: string): AppError {
  return new AppError(ErrorCode.ANALYTICS_BUSY, message, undefined, {
    'retry-after': String(ANALYTICS_RETRY_AFTER_SECONDS),
  });
}
