import { Module } from '@nestjs/common';
import { ClickRollupsRepository } from './click-rollups.repository';
import { ClickRollupsService } from './click-rollups.service';

/**
 * The click rollups' upkeep (writers keep them through triggers): the rebuild, the check of
 * their totals against the clicks, the deletion of old rows, and the repository the settling
 * of each hour uses.
 */
@Module({
  providers: [ClickRollupsRepository, ClickRollupsService],
  exports: [ClickRollupsService, ClickRollupsRepository],
})
export class ClickRollupsModule {}
