import { Module } from '@nestjs/common';
import { ClicksModule } from '../clicks/clicks.module';
import { AnalyticsModule } from '../analytics/analytics.module';
import { ConversionsModule } from '../conversions/conversions.module';
import { LinksModule } from '../links/links.module';
import { SandboxController } from './sandbox.controller';
import { SandboxService } from './sandbox.service';

/** The test-key sandbox's own operations (its records live in links and analytics). */
@Module({
  imports: [LinksModule, AnalyticsModule, ClicksModule, ConversionsModule],
  controllers: [SandboxController],
  providers: [SandboxService],
  exports: [SandboxService],
})
export class SandboxModule {}
