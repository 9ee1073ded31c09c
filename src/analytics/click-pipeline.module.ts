import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClickCountsService } from './click-counts.service';
import { ClickRollupReadsRepository } from './click-rollup-reads.repository';
import { ClickEntity } from './click.entity';
import { ClickPartitionsService } from './click-partitions.service';
import { ClickStreamConsumer } from './click-stream.consumer';

/** The write side of analytics: click streams to the partitioned clicks table. */
@Module({
  imports: [TypeOrmModule.forFeature([ClickEntity])],
  providers: [
    ClickStreamConsumer,
    ClickPartitionsService,
    ClickCountsService,
    ClickRollupReadsRepository,
  ],
  exports: [ClickStreamConsumer, ClickCountsService],
})
export class ClickPipelineModule {}
