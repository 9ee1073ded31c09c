import { Module } from '@nestjs/common';
import { ClickSpoolReplayService } from '../account/click-spool-replay.service';
import { QuotaModule } from '../account/quota.module';
import { CreatorsModule } from '../account/creators.module';
import { ClickPipelineModule } from '../analytics/click-pipeline.module';
import { EdgeStatsModule } from '../analytics/edge-stats.module';
import { NetworksModule } from '../networks/networks.module';
import { FxModule } from '../fx/fx.module';
import { LinksModule } from '../links/links.module';
import { MerchantsModule } from '../merchants/merchants.module';
import { CreatorEdgeProfilesService } from './creator-edge-profiles.service';
import { LinkPreviewController } from './link-preview.controller';
import { LinkPreviewService } from './link-preview.service';
import { LinkRecordsService } from './link-records.service';
import { RedirectHandler } from './redirect.handler';

@Module({
  imports: [
    LinksModule,
    MerchantsModule,
    FxModule,
    ClickPipelineModule,
    EdgeStatsModule,
    QuotaModule,
    CreatorsModule,
    NetworksModule,
  ],
  controllers: [LinkPreviewController],
  providers: [
    LinkRecordsService,
    CreatorEdgeProfilesService,
    RedirectHandler,
    LinkPreviewService,
    // The edge spools clicks during a Redis outage (QuotaModule's ClickSpool): it replays them.
    ClickSpoolReplayService,
  ],
  exports: [RedirectHandler, LinkRecordsService],
})
export class RedirectModule {}
