import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClickCountsService } from './click-counts.service';
import { ClickRollupReadsRepository } from './click-rollup-reads.repository';
import { ClickEntity } from './click.entity';
import { ClickPartitionsRepository } from './click-partitions.repository';
import { ClickPartitionsService } from './click-partitions.service';
import { ClickRollupCompactor } from './click-rollup-compactor.service';
import { ClickRollupSettler } from './click-rollup-settler.service';
import { ClickRollupsModule } from './click-rollups.module';
import { ClickStreamConsumer } from './click-stream.consumer';
import { ClickWritesRepository } from './click-writes.repository';

/**
 * The write side of analytics: click streams to the partitioned clicks table, the compaction
 * of the link rollup's deltas, and the settling of each hour into the creator rollups.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ClickEntity]), ClickRollupsModule],
  providers: [
    ClickWritesRepository,
    ClickStreamConsumer,
    ClickPartitionsRepository,
    ClickPartitionsService,
    ClickRollupSettler,
    ClickRollupCompactor,
    ClickCountsService,
    ClickRollupReadsRepository,
  ],
  exports: [ClickStreamConsumer, ClickCountsService],
})
export class ClickPipelineModule {}
