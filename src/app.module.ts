import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { AccountModule } from './account/account.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { ApiAccessGuard } from './auth/api-access.guard';
import { AuthModule } from './auth/auth.module';
import { ClicksModule } from './clicks/clicks.module';
import { Clock } from './common/clock';
import { CommonModule } from './common/common.module';
import { ConfigModule } from './config/config.module';
import { AppConfig } from './config/env';
import { DatabaseModule } from './database/database.module';
import { ENTITIES } from './entities';
import { FxModule } from './fx/fx.module';
import { HealthModule } from './health/health.module';
import { KvModule } from './kv/kv.module';
import { MerchantsModule } from './merchants/merchants.module';
import { NetworksModule } from './networks/networks.module';
import { ProbesModule } from './probes/probes.module';
import { RoutingModule } from './routing/routing.module';
import { RouteLearningModule } from './redirect/route-learning.module';
import { DomainsEdgeModule } from './domains/domains-edge.module';
import { LinksModule } from './links/links.module';
import { LinkQrCodeModule } from './links/link-qr-code.module';
import { RedirectModule } from './redirect/redirect.module';
import { SandboxModule } from './sandbox/sandbox.module';
import { ConversionsModule } from './conversions/conversions.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { ClickPipelineModule } from './analytics/click-pipeline.module';
import { ClickRetentionModule } from './analytics/click-retention.module';
import { VisitorSketchMoveModule } from './analytics/visitor-sketch-move.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { ApiThrottlerGuard } from './rate-limit/api-throttler.guard';
import { AppMetrics } from './metrics/app-metrics';
import { MetricsModule } from './metrics/metrics.module';

/** What a caller of createApp may add: a clock to drive, modules to mount (tests use both). */
export interface AppExtras {
  clock?: Clock;
  imports?: ModuleMetadata['imports'];
  /** The app's Prometheus metrics (createApp makes one per app); default: an empty set. */
  metrics?: AppMetrics;
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, extras: AppExtras = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        CommonModule.forRoot(extras.clock),
        MetricsModule.forRoot(extras.metrics ?? new AppMetrics({ collectProcessMetrics: false })),
        DatabaseModule.forRoot(ENTITIES),
        KvModule,
        AuthModule,
        RateLimitModule,
        AccountModule.withClickUsageFrom(ClicksModule),
        NetworksModule,
        HealthModule,
        MerchantsModule,
        RoutingModule,
        RouteLearningModule,
        LinksModule,
        DomainsEdgeModule,
        LinkQrCodeModule,
        RedirectModule,
        ClickPipelineModule,
        ClickRetentionModule,
        AnalyticsModule,
        VisitorSketchMoveModule,
        ScheduleModule.forRoot(),
        FxModule,
        ProbesModule,
        ConversionsModule,
        SandboxModule,
        WebhooksModule,
        ...(extras.imports ?? []),
      ],
      // Global guards run in this order: the gate authenticates, then the throttler counts the
      // request against the key it found.
      providers: [
        { provide: APP_GUARD, useClass: ApiAccessGuard },
        { provide: APP_GUARD, useClass: ApiThrottlerGuard },
      ],
    };
  }
}
