import { Module } from '@nestjs/common';
import { ClickPipelineModule } from '../analytics/click-pipeline.module';
import { EventsModule } from '../events/events.module';
import { ClickOutageAdmission } from './click-outage-admission';
import { ClickSpool } from './click-spool';
import { QuotaService } from './quota.service';

/**
 * The click quota and the edge windows: used by the redirect and the account API. During a
 * Redis outage, admission in-process and the click spool; the edge replays the spool
 * (ClickSpoolReplayService, provided by the redirect module) and health reports it.
 */
@Module({
  imports: [ClickPipelineModule, EventsModule],
  providers: [QuotaService, ClickOutageAdmission, ClickSpool],
  exports: [QuotaService, ClickSpool],
})
export class QuotaModule {}
