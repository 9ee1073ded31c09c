import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { KeyEnvironment } from '../common/access/auth-context';
import type { ExcludedHitReason } from './excluded-hits';

/** One ledger counter: a link's hits of one reason on one UTC day. */
export interface LedgerCounter {
  day: string;
  linkId: string;
  creatorId: string;
  environment: KeyEnvironment;
  reason: ExcludedHitReason;
  hits: number;
  epcUsdSum: number;
}

/**
 * The write side of `excluded_hits`, on the serving pool: apart from ExcludedHitsRepository
 * (the reads, through the analytics pool), so the edge's ledger needs no analytics pool.
 */
@Injectable()
export class ExcludedHitsLedgerRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Adds the batch to the day's counters, in one statement. */
  async addCounters(batch: LedgerCounter[]): Promise<void> {
    await this.dataSource.query(UPSERT_SQL, [
      batch.map((c) => c.day),
      batch.map((c) => c.linkId),
      batch.map((c) => c.creatorId),
      batch.map((c) => c.environment),
      batch.map((c) => c.reason),
      batch.map((c) => c.hits),
      batch.map((c) => c.epcUsdSum),
    ]);
  }
}

const UPSERT_SQL = `
  INSERT INTO excluded_hits (day, link_id, creator_id, environment, reason, hits, epc_usd_sum)
  SELECT * FROM unnest($1::date[], $2::varchar[], $3::varchar[], $4::varchar[], $5::varchar[],
                       $6::bigint[], $7::numeric[])
  ON CONFLICT (link_id, day, reason) DO UPDATE
     SET hits = excluded_hits.hits + EXCLUDED.hits,
         epc_usd_sum = excluded_hits.epc_usd_sum + EXCLUDED.epc_usd_sum`;
