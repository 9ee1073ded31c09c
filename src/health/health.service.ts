import { Injectable } from '@nestjs/common';
import { withinDeadline } from '../common/async/within-deadline';
import { ClickSpool } from '../clicks/click-spool';
import { InjectConfig } from '../config/config.module';
import { HealthConfig } from '../config/env';
import { Clock } from '../common/clock';
import { FxService } from '../fx/fx.service';
import { KvStore } from '../kv/kv-store';
import { DatabasePing } from '../database/database-ping';
import { ReadReplicas } from '../database/read-replicas';
import { classifyDependency, DependencyCheck, overallHealth } from './health-status';
import { HealthResponse, KvHealthCheckResponse } from './health.response';

const API_VERSION = 'v1';

type ReadinessCheck = 'ok' | 'unreachable' | 'pending';

/**
 * GET /readyz: ready when migrations are applied (PostgreSQL answers). The store is reported
 * but not required: without Redis a node still serves (limits in-process, clicks spooled), and
 * every node is without it at once, so taking them all out of rotation would stop everything.
 */
export interface Readiness {
  isReady: boolean;
  checks: { database: ReadinessCheck; migrations: ReadinessCheck; kv: ReadinessCheck };
}

@Injectable()
export class HealthService {
  constructor(
    @InjectConfig('health') private readonly config: HealthConfig,
    private readonly database: DatabasePing,
    private readonly store: KvStore,
    private readonly clock: Clock,
    private readonly fx: FxService,
    private readonly spool: ClickSpool,
    private readonly replicas: ReadReplicas,
  ) {}

  async check(): Promise<HealthResponse> {
    const [database, kv, fx] = await Promise.all([
      this.probe(() => this.database.ping()),
      this.probe(() => this.store.ping()),
      this.fx.checkHealth(this.config.timeoutMs),
    ]);
    return {
      // docs/design.md section 2: PostgreSQL and Redis only; FX shows in checks.fx.
      status: overallHealth([database, kv]),
      version: API_VERSION,
      kvLatencyMs: kv.latencyMs,
      timestamp: new Date(this.clock.nowMs()).toISOString(),
      checks: {
        database,
        kv: this.withSpool(kv),
        fx,
        ...(this.replicas.isConfigured ? { readReplicas: this.replicas.states() } : {}),
      },
    };
  }

  /** The spool shows while Redis is out and until it is empty (or dropped clicks, for good). */
  private withSpool(kv: DependencyCheck): KvHealthCheckResponse {
    const spool = this.spool.status();
    const isInUse = kv.status === 'unreachable' || spool.clicks > 0 || spool.droppedClicks > 0;
    return isInUse ? { ...kv, spool } : kv;
  }

  /**
   * Whether this process can serve: every migration it knows applied (a rolling deploy can
   * start a new version before its migrations ran), so PostgreSQL reachable within the health
   * timeout. The key-value store is checked and reported, not required (see Readiness).
   */
  async checkReadiness(): Promise<Readiness> {
    const [migrations, kv] = await Promise.all([
      this.withTimeout(() => this.database.hasPendingMigrations()).then(
        (hasPending): ReadinessCheck => (hasPending ? 'pending' : 'ok'),
        (): ReadinessCheck => 'unreachable',
      ),
      this.withTimeout(() => this.store.ping()).then(
        (): ReadinessCheck => 'ok',
        (): ReadinessCheck => 'unreachable',
      ),
    ]);
    // showMigrations reads the migrations table: it failing means PostgreSQL did not answer.
    const database: ReadinessCheck = migrations === 'unreachable' ? 'unreachable' : 'ok';
    return {
      isReady: migrations === 'ok',
      checks: { database, migrations, kv },
    };
  }

  private withTimeout<T>(work: () => Promise<T>): Promise<T> {
    return withinDeadline(work(), this.config.timeoutMs, 'The dependency');
  }

  /** Times one round trip, giving up after the configured timeout. */
  private async probe(roundTrip: () => Promise<unknown>): Promise<DependencyCheck> {
    const startedAt = performance.now();
    const reachable = await this.withTimeout(roundTrip).then(
      () => true,
      () => false,
    );
    const latencyMs = Math.round((performance.now() - startedAt) * 100) / 100;
    return {
      status: classifyDependency(reachable, latencyMs, this.config.slowThresholdMs),
      latencyMs,
    };
  }
}
