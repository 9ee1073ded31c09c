import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClickAttributionModule } from '../analytics/click-attribution.module';
import { EventsModule } from '../events/events.module';
import { FxModule } from '../fx/fx.module';
import { ConversionEntity } from './conversion.entity';
import { ConversionsController } from './conversions.controller';
import { ConversionsRepository } from './conversions.repository';
import { ConversionsService } from './conversions.service';
import { ConversionImportService } from './conversion-import.service';
import { PostbackTokenEntity } from './postback-token.entity';
import { PostbackTokensRepository } from './postback-tokens.repository';
import { PostbackTokensService } from './postback-tokens.service';
import { PostbacksController } from './postbacks.controller';

/** Conversions in: the API batch, the networks' postbacks, and the CLI import. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ConversionEntity, PostbackTokenEntity]),
    ClickAttributionModule,
    EventsModule,
    FxModule,
  ],
  controllers: [ConversionsController, PostbacksController],
  providers: [
    ConversionsRepository,
    ConversionsService,
    PostbackTokensService,
    PostbackTokensRepository,
    ConversionImportService,
  ],
  exports: [ConversionsService, ConversionImportService],
})
export class ConversionsModule {}
