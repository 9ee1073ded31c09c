import { Module } from '@nestjs/common';
import { ClickPipelineModule } from '../analytics/click-pipeline.module';
import { EventsModule } from '../events/events.module';
import { QuotaService } from './quota.service';

/** The click quota and the edge windows: used by the redirect and the account API. */
@Module({
  imports: [ClickPipelineModule, EventsModule],
  providers: [QuotaService],
  exports: [QuotaService],
})
export class QuotaModule {}
