import { Module } from '@nestjs/common';
import { ClickAttributionRepository } from './click-attribution.repository';
import { ClickAttributionService } from './click-attribution.service';

/**
 * Clicks by record id for the conversions' attribution: on its own, as the CLI's import
 * needs it without the analytics reads and their pools.
 */
@Module({
  providers: [ClickAttributionRepository, ClickAttributionService],
  exports: [ClickAttributionService],
})
export class ClickAttributionModule {}
