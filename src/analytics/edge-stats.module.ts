import { Module } from '@nestjs/common';
import { ExcludedHitsLedgerRepository } from './excluded-hits-ledger.repository';
import { ExcludedHitsLedgerService } from './excluded-hits-ledger.service';
import { VisitorHasherService } from './visitor-hasher.service';

/**
 * What only the edge writes besides clicks: the excluded-hit ledger and the unique-visitor
 * hash keys. Apart from the click pipeline, so the click worker and the CLI, which import
 * that pipeline, start neither timer nor the day-secret fetch.
 */
@Module({
  providers: [ExcludedHitsLedgerRepository, ExcludedHitsLedgerService, VisitorHasherService],
  exports: [ExcludedHitsLedgerService, VisitorHasherService],
})
export class EdgeStatsModule {}
