import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { RoutingModule } from '../routing/routing.module';
import { LinkBuilderService } from './link-builder.service';
import { LinkEntity } from './link.entity';
import { LinkEventsService } from './link-events.service';
import { LinkProbeStatesRepository } from './link-probe-states.repository';
import { LinkProbeStatesService } from './link-probe-states.service';
import { LinksController } from './links.controller';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';

@Module({
  imports: [TypeOrmModule.forFeature([LinkEntity]), RoutingModule, EventsModule],
  controllers: [LinksController],
  providers: [
    LinksRepository,
    LinkBuilderService,
    LinkEventsService,
    LinksService,
    LinkProbeStatesRepository,
    LinkProbeStatesService,
  ],
  exports: [LinksService, LinkEventsService, LinkProbeStatesService],
})
export class LinksModule {}
