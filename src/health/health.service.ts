import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { InjectConfig } from '../config/config.module';
import { HealthConfig } from '../config/env';
import { Clock } from '../common/clock';
import { FxService } from '../fx/fx.service';
import { KvStore } from '../kv/kv-store';
import { classifyDependency, DependencyCheck, overallHealth } from './health-status';
import { HealthResponse } from './health.response';

export const API_VERSION = 'v1';

export type ReadinessCheck = 'ok' | 'unreachable' | 'pending';

/** GET /readyz: ready when migrations are applied and PostgreSQL and the store answer. */
export interface Readiness {
  isReady: boolean;
  checks: { database: ReadinessCheck; migrations: ReadinessCheck; kv: ReadinessCheck };
}

@Injectable()
export class HealthService {
  constructor(
    @InjectConfig('health') private readonly config: HealthConfig,
    private readonly dataSource: DataSource,
    private readonly store: KvStore,
    private readonly clock: Clock,
    private readonly fx: FxService,
  ) {}

  async check(): Promise<HealthResponse> {
    const [database, kv, fx] = await Promise.all([
      this.probe(() => this.dataSource.query('SELECT 1')),
      this.probe(() => this.store.ping()),
      this.fx.checkHealth(this.config.timeoutMs),
    ]);
    return {
      // docs/design.md section 2: PostgreSQL and Redis only; FX shows in checks.fx.
      status: overallHealth([database, kv]),
      version: API_VERSION,
      kvLatencyMs: kv.latencyMs,
      timestamp: new Date(this.clock.nowMs()).toISOString(),
      checks: { database, kv, fx },
    };
  }

  /**
   * Whether this process can serve: every migration it knows applied (a rolling deploy can
   * start a new version before its migrations ran), PostgreSQL and the key-value store
   * reachable within the health timeout.
   */
  async checkReadiness(): Promise<Readiness> {
    const [migrations, kv] = await Promise.all([
      this.withTimeout(() => this.dataSource.showMigrations()).then(
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
      isReady: migrations === 'ok' && kv === 'ok',
      checks: { database, migrations, kv },
    };
  }

  private async withTimeout<T>(work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), this.config.timeoutMs);
    });
    try {
      return await Promise.race([work(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Times one round trip, giving up after the configured timeout. */
  private async probe(roundTrip: () => Promise<unknown>): Promise<DependencyCheck> {
    const startedAt = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), this.config.timeoutMs);
    });
    const reachable = await Promise.race([roundTrip(), timeout]).then(
      () => true,
      () => false,
    );
    clearTimeout(timer);
    const latencyMs = Math.round((performance.now() - startedAt) * 100) / 100;
    return {
      status: classifyDependency(reachable, latencyMs, this.config.slowThresholdMs),
      latencyMs,
    };
  }
}
