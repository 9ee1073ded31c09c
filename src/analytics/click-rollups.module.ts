import { Module } from '@nestjs/common';
import { ClickRollupsRepository } from './click-rollups.repository';
import { ClickRollupsService } from './click-rollups.service';

/**
 * The click rollups' upkeep (writers keep them through triggers): the rebuild, the check of
 * their totals against the clicks, the deletion of old rows.
 */
@Module({
  providers: [ClickRollupsRepository, ClickRollupsService],
  exports: [ClickRollupsService],
})
export class ClickRollupsModule {}
