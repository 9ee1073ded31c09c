import { Module } from '@nestjs/common';
import { AdvisoryLocks } from '../database/advisory-lock';
import { ClickPartitionsRepository } from './click-partitions.repository';
import { ClickRetentionJob } from './click-retention.job';
import { ClickRetentionService } from './click-retention.service';
import { ClickRollupsModule } from './click-rollups.module';
import { VisitorSketchesRepository } from './visitor-sketches.repository';

/**
 * The analytics retention: old click partitions dropped after their rollups are checked, old
 * rollups and unique-visitor sketches deleted. The daily job fires only where ScheduleModule is loaded (the server); the
 * CLI runs the service itself (`linkpilot analytics retention`).
 */
@Module({
  imports: [ClickRollupsModule],
  providers: [
    AdvisoryLocks,
    ClickPartitionsRepository,
    VisitorSketchesRepository,
    ClickRetentionService,
    ClickRetentionJob,
  ],
  exports: [ClickRetentionService],
})
export class ClickRetentionModule {}
