import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnalyticsModule } from '../analytics/analytics.module';
import { DomainsModule } from '../domains/domains.module';
import { EventsModule } from '../events/events.module';
import { MerchantsModule } from '../merchants/merchants.module';
import { RoutingModule } from '../routing/routing.module';
import { CommissionRateChangesService } from './commission-rate-changes.service';
import { LinkAnalyticsController } from './link-analytics.controller';
import { LinkBuilderService } from './link-builder.service';
import { LinkBrandingService } from './link-branding.service';
import { LinkEntity } from './link.entity';
import { LinkEventsService } from './link-events.service';
import { LinkLimitsService } from './link-limits.service';
import { LinkProbeStatesRepository } from './link-probe-states.repository';
import { LinkProbeStatesService } from './link-probe-states.service';
import { LinksController } from './links.controller';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([LinkEntity]),
    RoutingModule,
    MerchantsModule,
    EventsModule,
    AnalyticsModule,
    DomainsModule,
  ],
  controllers: [LinksController, LinkAnalyticsController],
  providers: [
    LinksRepository,
    LinkBuilderService,
    LinkBrandingService,
    LinkEventsService,
    LinksService,
    LinkLimitsService,
    LinkProbeStatesRepository,
    LinkProbeStatesService,
    CommissionRateChangesService,
  ],
  exports: [LinksService, LinkEventsService, LinkProbeStatesService, CommissionRateChangesService],
})
export class LinksModule {}
