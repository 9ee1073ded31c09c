import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ReleaseSlot, SlotQueue } from '../common/async/slot-queue';
import { AppError } from '../common/errors/app-error';
import { isStatementTimeout } from '../common/errors/database-unavailable';
import { ErrorCode } from '../common/errors/error-code';
import { InjectConfig } from '../config/config.module';
import { DatabaseConfig } from '../config/env';
import { analyticsPoolOptions } from './analytics-pool';
import { restAfterPrimaryWork } from './primary-share';
import { isReplicaFailure, ReadReplicas } from './read-replicas';
import { AppMetrics } from '../metrics/app-metrics';

/** Seconds a caller refused by the analytics bounds should wait before asking again. */
const ANALYTICS_RETRY_AFTER_SECONDS = 2;

/** Where an analytics call was answered, counted for /metrics. */
const ANSWERED_BY = ['primary', 'replica'] as const;

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
 *
 * A slot whose read ran on the primary rests before its next read, in proportion to the time
 * the read took (ANALYTICS_PRIMARY_SHARE_PERCENT, database/primary-share.ts): the slots bound
 * the primary's connections and, with the rest, the share of its CPU that dashboards take.
 *
 * With read replicas (DATABASE_READ_URL, database/read-replicas.ts) a slot runs its call on a
 * replica keeping up within DATABASE_READ_MAX_LAG_S, else on the primary's analytics pool; a
 * call that fails on the replica because of the replica is run again on the primary, in the
 * same slot, so a replica never costs a caller an error. The slots bound the calls of this
 * server wherever they run.
 */
@Injectable()
export class AnalyticsDatabase implements OnModuleDestroy {
  private readonly slots: SlotQueue;
  /** The connection source of the slot the current call holds, if it holds one. */
  private readonly held = new AsyncLocalStorage<DataSource>();
  /** Their own pool, opened by the first read (the CLI builds this module and never reads). */
  private opening: Promise<DataSource> | null = null;

  private readonly answeredBy: Record<(typeof ANSWERED_BY)[number], number>;

  constructor(
    @InjectDataSource() private readonly serving: DataSource,
    @InjectConfig('database') private readonly config: DatabaseConfig,
    private readonly replicas: ReadReplicas,
    metrics: AppMetrics,
  ) {
    const { poolSize, queueTimeoutMs } = config.analytics;
    this.slots = new SlotQueue(Math.max(1, poolSize), queueTimeoutMs);
    this.answeredBy = metrics.plainCounter(
      'linkpilot_analytics_reads_total',
      'Analytics calls answered, by the database that answered them: a read replica (DATABASE_READ_URL) or the primary',
      'database',
      ANSWERED_BY,
    );
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
    let primaryBusyMs = 0;
    try {
      const replica = this.replicas.pick();
      if (replica !== null) {
        try {
          const source = await replica.source();
          const answer = await this.held.run(source, () => work(source));
          this.answeredBy.replica++;
          return answer;
        } catch (error) {
          if (!isReplicaFailure(error)) throw error;
          this.replicas.reportFailure(replica, error);
        }
      }
      const source = await this.source();
      const startedAt = performance.now();
      try {
        const answer = await this.held.run(source, () => work(source));
        this.answeredBy.primary++;
        return answer;
      } finally {
        primaryBusyMs = performance.now() - startedAt;
      }
    } catch (error) {
      throw isStatementTimeout(error) ? this.timeoutError() : error;
    } finally {
      this.releaseAfterRest(release, primaryBusyMs);
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

  /**
   * The slot is given back once it has rested in proportion to the time its read kept the
   * primary busy (ANALYTICS_PRIMARY_SHARE_PERCENT); the caller has its answer meanwhile.
   */
  private releaseAfterRest(release: ReleaseSlot, primaryBusyMs: number): void {
    const restMs = restAfterPrimaryWork(primaryBusyMs, this.config.analytics.primarySharePercent);
    if (restMs < 1) {
      release();
      return;
    }
    // Unreferenced: a resting slot never keeps a stopping process alive.
    setTimeout(release, restMs).unref();
  }

  private source(): Promise<DataSource> {
    const { url, analytics } = this.config;
    if (analytics.poolSize === 0) return Promise.resolve(this.serving);
    this.opening ??= new DataSource(
      analyticsPoolOptions(url ?? '', this.config, this.serving.options.entities ?? []),
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
    const { poolSize, queueTimeoutMs, primarySharePercent } = this.config.analytics;
    const capacity =
      poolSize === 0
        ? 'one runs at a time on the serving pool (ANALYTICS_POOL_SIZE=0)'
        : `${poolSize} run at once on this server (ANALYTICS_POOL_SIZE)`;
    const share =
      primarySharePercent < 100
        ? `, each keeping the primary busy at most ${primarySharePercent}% of the time ` +
          '(ANALYTICS_PRIMARY_SHARE_PERCENT)'
        : '';
    return busy(
      `Analytics reads are at capacity: ${capacity}${share}, and none was free within ` +
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
