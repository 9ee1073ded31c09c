import { Module } from '@nestjs/common';
import { ClickUsage } from '../account/click-usage';
import { ClickPipelineModule } from '../analytics/click-pipeline.module';
import { EventsModule } from '../events/events.module';
import { ClickOutageAdmission } from './click-outage-admission';
import { ClickSpool } from './click-spool';
import { ClickSpoolReplayService } from './click-spool-replay.service';
import { QuotaService } from './quota.service';

/**
 * The click's write side: admission against the quota and the edge windows (used by the
 * redirect, the sandbox and the account's usage figures), and, during a Redis outage,
 * admission in-process and the click spool, replayed into Redis once it is back. The stream
 * codec and stream keys stay in analytics, whose consumer (a layer below) decodes the records.
 */
@Module({
  imports: [ClickPipelineModule, EventsModule],
  providers: [
    QuotaService,
    ClickOutageAdmission,
    ClickSpool,
    ClickSpoolReplayService,
    { provide: ClickUsage, useExisting: QuotaService },
  ],
  exports: [QuotaService, ClickSpool, ClickUsage],
})
export class ClicksModule {}
