import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ReadReplicasModule } from '../database/read-replicas.module';
import { MerchantsModule } from '../merchants/merchants.module';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsDatabase } from '../database/analytics-database';
import { AnalyticsService } from './analytics.service';
import { ClickEntity } from './click.entity';
import { ClicksRepository } from './clicks.repository';
import { ClickRollupReadsRepository } from './click-rollup-reads.repository';
import { ConversionRollupReadsRepository } from './conversion-rollup-reads.repository';
import { RealisedEpcService } from './realised-epc.service';
import { ExcludedHitsRepository } from './excluded-hits.repository';
import { UniqueVisitorsService } from './unique-visitors.service';
import { VisitorSketchesRepository } from './visitor-sketches.repository';

@Module({
  imports: [TypeOrmModule.forFeature([ClickEntity]), MerchantsModule, ReadReplicasModule],
  controllers: [AnalyticsController],
  providers: [
    AnalyticsDatabase,
    ClicksRepository,
    ClickRollupReadsRepository,
    ConversionRollupReadsRepository,
    RealisedEpcService,
    ExcludedHitsRepository,
    VisitorSketchesRepository,
    UniqueVisitorsService,
    AnalyticsService,
  ],
  exports: [AnalyticsService, RealisedEpcService],
})
export class AnalyticsModule {}
