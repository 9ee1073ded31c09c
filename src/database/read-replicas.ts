import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { withinDeadline } from '../common/async/within-deadline';
import { isDatabaseUnavailable } from '../common/errors/database-unavailable';
import { InjectConfig } from '../config/config.module';
import { DatabaseConfig, HealthConfig, redactUrl } from '../config/env';
import { analyticsPoolOptions } from './analytics-pool';
import { parseLsn, PrimaryPositions } from './replica-lag';

/** How often each server measures its replicas' lag. */
const REPLICA_CHECK_INTERVAL_MS = 1000;

/**
 * - ok: keeping up within DATABASE_READ_MAX_LAG_S; the analytics reads go there.
 * - lagging: further behind than that (its lag then says by how much, at least).
 * - unreachable: its last check or a read on it failed (down, cut off, not answering within
 *   HEALTH_TIMEOUT_MS, a statement cancelled by its recovery).
 * - not_a_replica: it answers, but is no standby of the primary's database and not the primary
 *   itself reached another way: a promoted replica, another cluster or database; its data
 *   cannot be placed against the primary's, so it is never read.
 * - unknown: not measured yet (just started, or the primary not sampled yet).
 * Only `ok` replicas are read from; with none, the primary answers.
 */
export type ReplicaStatus = 'ok' | 'lagging' | 'unreachable' | 'not_a_replica' | 'unknown';

export interface ReplicaState {
  /** Its place in DATABASE_READ_URL, from 1 (no address: health is public). */
  replica: number;
  status: ReplicaStatus;
  /**
   * Seconds of the primary's commits it may not show yet (a lower bound when `lagging`
   * beyond the history kept); null when not measured.
   */
  lagSeconds: number | null;
}

/** One replica's pool and its last verdict. */
export class Replica {
  private opening: Promise<DataSource> | null = null;
  state: ReplicaState;

  constructor(
    readonly number: number,
    private readonly options: DataSourceOptions,
  ) {
    this.state = { replica: number, status: 'unknown', lagSeconds: null };
  }

  /** Its pool, opened on first use; a failed open is forgotten, so the next use tries again. */
  source(): Promise<DataSource> {
    this.opening ??= new DataSource(this.options).initialize().catch((error: unknown) => {
      this.opening = null;
      throw error;
    });
    return this.opening;
  }

  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = null;
    await opening?.then(
      (source) => source.destroy(),
      () => undefined,
    );
  }
}

/**
 * Where the primary's WAL is, and which cluster, server start and database it is: a replica
 * must be of the same cluster and database, and a server not in recovery must be the primary
 * itself (the same start), reached another way.
 */
const PRIMARY_POSITION_SQL = `
  SELECT pg_current_wal_lsn()::text AS lsn, current_database() AS database,
         (SELECT system_identifier FROM pg_control_system())::text AS system,
         pg_postmaster_start_time()::text AS started`;

/** How far a replica has replayed; a server not in recovery says where its own WAL is. */
const REPLICA_POSITION_SQL = `
  SELECT pg_is_in_recovery() AS standby,
         CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()
              ELSE pg_current_wal_lsn() END::text AS lsn,
         current_database() AS database,
         (SELECT system_identifier FROM pg_control_system())::text AS system,
         pg_postmaster_start_time()::text AS started`;

interface PositionRow {
  lsn: string | null;
  database: string;
  system: string;
  started: string;
}

/**
 * DATABASE_READ_URL's replicas for the analytics reads (analytics/analytics-database.ts): each
 * has a pool of its own (ANALYTICS_POOL_SIZE connections and one for its checks), and once a
 * second every server measures each one's lag against the primary (replica-lag.ts). `pick`
 * names a replica within DATABASE_READ_MAX_LAG_S, in turn, or none: then the primary answers.
 * A read that fails on a replica is answered by the primary, and the replica is skipped until
 * a check finds it keeping up again.
 *
 * Why not TypeORM's `replication` option: it picks a replica at random per query runner, with
 * no notion of lag or of a replica being down (a read there simply fails), and it sends every
 * read the ORM makes outside a transaction to the replicas unless told otherwise, where the
 * reads that must see the caller's own last write (links, keys, webhooks) belong on the
 * primary. A pool per replica, chosen by measured lag and used by the analytics reads alone,
 * keeps both decisions here.
 */
@Injectable()
export class ReadReplicas implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ReadReplicas.name);
  private readonly replicas: Replica[];
  private readonly primaryPositions: PrimaryPositions;
  private readonly maxLagMs: number;
  private primaryIdentity: Omit<PositionRow, 'lsn'> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private turn = 0;

  constructor(
    @InjectDataSource() private readonly primary: DataSource,
    @InjectConfig('database') config: DatabaseConfig,
    @InjectConfig('health') private readonly health: HealthConfig,
  ) {
    const { urls, maxLagSeconds } = config.readReplicas;
    this.maxLagMs = maxLagSeconds * 1000;
    // Past the largest lag that matters, how much more does not: a replica behind all of it
    // is `lagging` by at least that.
    this.primaryPositions = new PrimaryPositions(this.maxLagMs + 5 * REPLICA_CHECK_INTERVAL_MS);
    this.replicas = urls.map(
      (url, index) =>
        new Replica(
          index + 1,
          analyticsPoolOptions(url, config, primary.options.entities ?? [], 1),
        ),
    );
    urls.forEach((url, index) =>
      this.logger.log(`Read replica ${index + 1}: ${redactUrl(url)} (analytics reads)`),
    );
  }

  get isConfigured(): boolean {
    return this.replicas.length > 0;
  }

  onApplicationBootstrap(): void {
    if (!this.isConfigured) return;
    // The reads use the primary until a first check finds a replica keeping up.
    void this.check();
    this.timer = setInterval(() => void this.check(), REPLICA_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.checking;
    await Promise.all(this.replicas.map((replica) => replica.close()));
  }

  /** A replica to read from now, taking turns among those keeping up; null: the primary. */
  pick(): Replica | null {
    const usable = this.replicas.filter((replica) => replica.state.status === 'ok');
    if (usable.length === 0) return null;
    this.turn = (this.turn + 1) % usable.length;
    return usable[this.turn];
  }

  /** A read failed on `replica` the way a replica fails: skipped until a check clears it. */
  reportFailure(replica: Replica, error: unknown): void {
    if (replica.state.status !== 'unreachable') {
      this.logger.warn(
        `Read replica ${replica.number} failed a read (${messageOf(error)}); the primary answers until it keeps up again`,
      );
    }
    replica.state = { replica: replica.number, status: 'unreachable', lagSeconds: null };
  }

  states(): ReplicaState[] {
    return this.replicas.map((replica) => ({ ...replica.state }));
  }

  /** One measurement of every replica (a check under way is joined, never doubled). */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async checkAll(): Promise<void> {
    const sampledAt = performance.now();
    try {
      const [row] = await this.withinTimeout(
        this.primary.query<PositionRow[]>(PRIMARY_POSITION_SQL),
        'The primary',
      );
      if (row.lsn !== null) this.primaryPositions.record(sampledAt, parseLsn(row.lsn));
      this.primaryIdentity = { database: row.database, system: row.system, started: row.started };
    } catch {
      // Not sampled: every replica's lag grows with the time since the last sample, as the
      // primary's commits since then are unknown.
    }
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica)));
  }

  private async checkReplica(replica: Replica): Promise<void> {
    const before = replica.state.status;
    replica.state = { replica: replica.number, ...(await this.measure(replica)) };
    const after = replica.state.status;
    if (after !== before && before !== 'unknown') {
      const lag = replica.state.lagSeconds === null ? '' : ` (lag ${replica.state.lagSeconds} s)`;
      this.logger.log(`Read replica ${replica.number}: ${before} -> ${after}${lag}`);
    }
  }

  private async measure(replica: Replica): Promise<Omit<ReplicaState, 'replica'>> {
    let row: PositionRow & { standby: boolean };
    try {
      const source = await this.withinTimeout(replica.source(), 'A read replica');
      [row] = await this.withinTimeout(
        source.query<(PositionRow & { standby: boolean })[]>(REPLICA_POSITION_SQL),
        'A read replica',
      );
    } catch {
      return { status: 'unreachable', lagSeconds: null };
    }
    const identity = this.primaryIdentity;
    if (identity === null || row.lsn === null) return { status: 'unknown', lagSeconds: null };
    // A standby of this primary's database, or the primary itself (the same start).
    const isOurs =
      row.system === identity.system &&
      row.database === identity.database &&
      (row.standby || row.started === identity.started);
    if (!isOurs) return { status: 'not_a_replica', lagSeconds: null };
    const now = performance.now();
    const staleMs = this.primaryPositions.stalenessMs(parseLsn(row.lsn), now);
    const lagMs = staleMs ?? this.primaryPositions.coveredMs(now);
    if (lagMs === null) return { status: 'unknown', lagSeconds: null };
    const lagSeconds = Math.round(lagMs) / 1000;
    return { status: staleMs !== null && lagMs <= this.maxLagMs ? 'ok' : 'lagging', lagSeconds };
  }

  private withinTimeout<T>(pending: Promise<T>, what: string): Promise<T> {
    return withinDeadline(pending, this.health.timeoutMs, what);
  }
}

/**
 * Whether a read failed because of the replica it ran on, so the primary should answer it:
 * the replica unreachable, cut off or not answering (as for the primary,
 * isDatabaseUnavailable), or a statement its recovery cancelled (40001, 40P01: a conflict with
 * WAL replay; 57P04: its database dropped by replay). A statement timeout or a refusal of the
 * request itself is the caller's answer wherever it ran.
 */
export function isReplicaFailure(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  for (let cause = error, depth = 0; cause !== null && cause !== undefined && depth < 4; depth++) {
    if (typeof cause !== 'object') return false;
    const { code } = cause as { code?: unknown };
    if (code === '40001' || code === '40P01' || code === '57P04') return true;
    cause =
      (cause as { driverError?: unknown }).driverError ?? (cause as { cause?: unknown }).cause;
  }
  return false;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
