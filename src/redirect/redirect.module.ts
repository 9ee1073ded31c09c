import { Module } from '@nestjs/common';
import { QuotaModule } from '../account/quota.module';
import { CreatorsModule } from '../account/creators.module';
import { ClickPipelineModule } from '../analytics/click-pipeline.module';
import { NetworksModule } from '../networks/networks.module';
import { FxModule } from '../fx/fx.module';
import { LinksModule } from '../links/links.module';
import { MerchantsModule } from '../merchants/merchants.module';
import { CreatorEdgeProfilesService } from './creator-edge-profiles.service';
import { LinkRecordsService } from './link-records.service';
import { RedirectHandler } from './redirect.handler';

@Module({
  imports: [
    LinksModule,
    MerchantsModule,
    FxModule,
    ClickPipelineModule,
    QuotaModule,
    CreatorsModule,
    NetworksModule,
  ],
  providers: [LinkRecordsService, CreatorEdgeProfilesService, RedirectHandler],
  exports: [RedirectHandler, LinkRecordsService],
})
export class RedirectModule {}
