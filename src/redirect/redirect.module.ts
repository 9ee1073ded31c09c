import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClickPipelineModule } from '../analytics/click-pipeline.module';
import { FxModule } from '../fx/fx.module';
import { LinkEntity } from '../links/link.entity';
import { LinksModule } from '../links/links.module';
import { ProbesModule } from '../probes/probes.module';
import { MerchantsModule } from '../merchants/merchants.module';
import { CreatorEdgeProfilesService } from './creator-edge-profiles.service';
import { LinkRecordsService } from './link-records.service';
import { RedirectHandler } from './redirect.handler';

@Module({
  imports: [
    TypeOrmModule.forFeature([LinkEntity]),
    LinksModule,
    MerchantsModule,
    FxModule,
    ClickPipelineModule,
    ProbesModule,
  ],
  providers: [LinkRecordsService, CreatorEdgeProfilesService, RedirectHandler],
  exports: [RedirectHandler, LinkRecordsService],
})
export class RedirectModule {}
