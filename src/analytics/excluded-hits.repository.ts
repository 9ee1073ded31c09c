import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RecordScope } from '../common/access/auth-context';
import type { DayPeriod } from './analytics-dates';
import { AnalyticsDatabase } from '../database/analytics-database';
import {
  EXCLUDED_HIT_REASONS,
  ExcludedHitReason,
  REVENUE_LOSING_REASONS,
  zeroedByReason,
} from './excluded-hits';

/** The ledger over a period: hits by reason, and the revenue the real visitors among them cost. */
export interface ExcludedHitsTotals {
  excludedHits: Record<ExcludedHitReason, number>;
  revenueNotEarnedUsd: Record<(typeof REVENUE_LOSING_REASONS)[number], number>;
}

/**
 * The excluded-hit ledger's read side (the table ExcludedHitsLedgerService writes): reads
 * through AnalyticsDatabase, the sandbox purge through the serving pool.
 */
@Injectable()
export class ExcludedHitsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reads: AnalyticsDatabase,
  ) {}

  /** The scope's ledger over the inclusive days, optionally of one link. */
  async totals(
    scope: RecordScope,
    period: DayPeriod,
    linkId: string | null,
  ): Promise<ExcludedHitsTotals> {
    const rows: { reason: string; hits: string; epc_usd_sum: string }[] = await this.reads.read(
      (source) =>
        source.query(
          `SELECT reason, sum(hits) AS hits, sum(epc_usd_sum) AS epc_usd_sum
             FROM excluded_hits
            WHERE creator_id = $1 AND environment = $2 AND day >= $3 AND day <= $4
              AND ($5::varchar IS NULL OR link_id = $5)
            GROUP BY reason`,
          [scope.creatorId, scope.environment, period.periodStart, period.periodEnd, linkId],
        ),
    );
    const excludedHits = zeroedByReason();
    const revenueNotEarnedUsd = { creator_rate_limited: 0, quota_exhausted: 0 };
    for (const row of rows) {
      const reason = row.reason as ExcludedHitReason;
      if (!EXCLUDED_HIT_REASONS.includes(reason)) continue;
      excludedHits[reason] = Number(row.hits);
      if (reason === 'creator_rate_limited' || reason === 'quota_exhausted') {
        revenueNotEarnedUsd[reason] = Number(Number(row.epc_usd_sum).toFixed(6));
      }
    }
    return { excludedHits, revenueNotEarnedUsd };
  }

  /** The sandbox reset: the scope's test counters go with its test links. */
  async purgeTestScope(scope: RecordScope): Promise<void> {
    if (scope.environment !== 'test') throw new Error('Only test counters can be purged');
    await this.dataSource.query(
      `DELETE FROM excluded_hits WHERE creator_id = $1 AND environment = 'test'`,
      [scope.creatorId],
    );
  }
}
