import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProbesModule } from '../probes/probes.module';
import { RoutingModule } from '../routing/routing.module';
import { LinkBuilderService } from './link-builder.service';
import { LinkEntity } from './link.entity';
import { LinkEventsService } from './link-events.service';
import { LinksController } from './links.controller';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';

@Module({
  imports: [TypeOrmModule.forFeature([LinkEntity]), RoutingModule, ProbesModule],
  controllers: [LinksController],
  providers: [LinksRepository, LinkBuilderService, LinkEventsService, LinksService],
  exports: [LinksService, LinkEventsService],
})
export class LinksModule {}
