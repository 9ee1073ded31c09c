import { Module } from '@nestjs/common';
import { ClicksModule } from '../clicks/clicks.module';
import { CreatorsModule } from '../account/creators.module';
import { ClickPipelineModule } from '../analytics/click-pipeline.module';
import { EdgeStatsModule } from '../analytics/edge-stats.module';
import { NetworksModule } from '../networks/networks.module';
import { FxModule } from '../fx/fx.module';
import { LinksModule } from '../links/links.module';
import { MerchantsModule } from '../merchants/merchants.module';
import { CreatorEdgeProfilesService } from './creator-edge-profiles.service';
import { EdgeReadModel } from './edge-read-model';
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
    ClicksModule,
    CreatorsModule,
    NetworksModule,
  ],
  controllers: [LinkPreviewController],
  providers: [
    LinkRecordsService,
    CreatorEdgeProfilesService,
    EdgeReadModel,
    RedirectHandler,
    LinkPreviewService,
  ],
  exports: [RedirectHandler, LinkRecordsService],
})
export class RedirectModule {}
