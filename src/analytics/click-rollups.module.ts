import { Module } from '@nestjs/common';
import { ClickRollupsRepository } from './click-rollups.repository';
import { ClickRollupsService } from './click-rollups.service';

/** The hourly click rollups' upkeep: the rebuild (writers keep them through triggers). */
@Module({
  providers: [ClickRollupsRepository, ClickRollupsService],
  exports: [ClickRollupsService],
})
export class ClickRollupsModule {}
