import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { KeyEnvironment } from '../common/access/auth-context';
import { Clock } from '../common/clock';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { AppMetrics } from '../metrics/app-metrics';
import { EXCLUDED_HIT_REASONS, type ExcludedHitReason } from './excluded-hits';
import { ExcludedHitsLedgerRepository, LedgerCounter } from './excluded-hits-ledger.repository';
import { clickDayOf } from './unique-visitors';

/** Counters are written in batches this often (and when the process stops). */
const FLUSH_INTERVAL_MS = 2_000;
/** Past this many distinct counters a batch is written at once, so memory stays bounded. */
const MAX_PENDING_COUNTERS = 10_000;

/** One hit the edge served without counting it. */
export interface ExcludedHit {
  linkId: string;
  creatorId: string;
  environment: KeyEnvironment;
  reason: ExcludedHitReason;
  /** The normalised EPC of the route the hit would have taken; 0 when none was decided. */
  epcUsd: number;
  nowMs: number;
}

/**
 * The excluded-hit ledger's write side: the edge records each hit it served without counting
 * (bots, link previews, HEAD requests, edge windows, a Free quota) as an in-process counter
 * (a map update, no I/O on the redirect), and one statement writes the batch every two
 * seconds, adding to the day's counters (ON CONFLICT ... hits + n). A crash loses at most
 * that batch: these are statistics, not the billed clicks.
 */
@Injectable()
export class ExcludedHitsLedgerService implements OnModuleInit, OnModuleDestroy {
  private pending = new Map<string, LedgerCounter>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly warnings: ThrottledLogger;
  /** Since the process started, by reason: GET /metrics's linkpilot_excluded_hits_total. */
  private readonly hitsByReason: Record<ExcludedHitReason, number>;

  constructor(
    private readonly ledger: ExcludedHitsLedgerRepository,
    metrics: AppMetrics,
    clock: Clock,
  ) {
    this.warnings = new ThrottledLogger('ExcludedHits', 10_000, clock);
    this.hitsByReason = metrics.plainCounter(
      'linkpilot_excluded_hits_total',
      'Hits on /r/ served without counting a click, by excluded-hit ledger reason',
      'reason',
      EXCLUDED_HIT_REASONS,
    );
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    await this.flush();
  }

  record(hit: ExcludedHit): void {
    this.hitsByReason[hit.reason]++;
    const day = clickDayOf(hit.nowMs);
    const key = `${hit.linkId}|${day}|${hit.reason}`;
    const counter = this.pending.get(key);
    if (counter !== undefined) {
      counter.hits += 1;
      counter.epcUsdSum += hit.epcUsd;
      return;
    }
    this.pending.set(key, {
      day,
      linkId: hit.linkId,
      creatorId: hit.creatorId,
      environment: hit.environment,
      reason: hit.reason,
      hits: 1,
      epcUsdSum: hit.epcUsd,
    });
    if (this.pending.size >= MAX_PENDING_COUNTERS) void this.flush();
  }

  /** Writes the counters gathered so far (tests call it to read the ledger at once). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.ledger.addCounters(batch);
    } catch (error) {
      // Kept for the next batch (PostgreSQL down): added to what gathered meanwhile.
      for (const counter of batch) {
        const key = `${counter.linkId}|${counter.day}|${counter.reason}`;
        const newer = this.pending.get(key);
        if (newer === undefined) this.pending.set(key, counter);
        else {
          newer.hits += counter.hits;
          newer.epcUsdSum += counter.epcUsdSum;
        }
      }
      this.warnings.warn('write', 'Excluded-hit counters not written yet', error);
    }
  }
}
