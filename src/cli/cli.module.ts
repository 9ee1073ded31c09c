import { DynamicModule, Module } from '@nestjs/common';
import { CreatorsModule } from '../account/creators.module';
import { ClickRetentionModule } from '../analytics/click-retention.module';
import { ClickRollupsModule } from '../analytics/click-rollups.module';
import { AuthModule } from '../auth/auth.module';
import { CommonModule } from '../common/common.module';
import { ConversionsModule } from '../conversions/conversions.module';
import { ConfigModule } from '../config/config.module';
import { AppConfig } from '../config/env';
import { DatabaseModule } from '../database/database.module';
import { ENTITIES } from '../entities';
import { FxModule } from '../fx/fx.module';
import { KvModule } from '../kv/kv.module';
import { LinksModule } from '../links/links.module';
import { UnservedMetricsModule } from '../metrics/metrics.module';
import { NetworksModule } from '../networks/networks.module';
import { SandboxModule } from '../sandbox/sandbox.module';
import { WebhookSecretsModule } from '../webhooks/webhook-secrets.module';
import { AdminService } from './admin.service';

export interface CliModuleOptions {
  /**
   * The sandbox reset: its services and the key-value store (test usage counters, edge cache
   * eviction). Off for every other command, which then never connects to Redis.
   */
  sandbox?: boolean;
  /** Links and the key-value store they evict through (merchants set-epc, kb apply). */
  links?: boolean;
  /** The stored signing secrets' encryption (webhooks rotate-encryption-key). */
  webhookSecrets?: boolean;
  /** Conversions and what they are attributed with (conversions import). */
  conversions?: boolean;
}

/** What the admin CLI needs: the database-backed services, no HTTP, no cron jobs. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig, options: CliModuleOptions = {}): DynamicModule {
    // A CLI process never consumes clicks, whatever the server's setting, and never replays
    // the click spool of the server that shares its DATA_DIR.
    const cliConfig = {
      ...config,
      clicks: { ...config.clicks, consumerEnabled: false },
      clickSpool: { ...config.clickSpool, replays: false },
    };
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(cliConfig),
        CommonModule.forRoot(),
        UnservedMetricsModule.forRoot(),
        DatabaseModule.forRoot(ENTITIES),
        CreatorsModule,
        AuthModule,
        NetworksModule,
        FxModule,
        ClickRollupsModule,
        ClickRetentionModule,
        ...(options.sandbox === true ? [KvModule, SandboxModule] : []),
        ...(options.links === true ? [KvModule, LinksModule] : []),
        ...(options.webhookSecrets === true ? [WebhookSecretsModule] : []),
        ...(options.conversions === true ? [ConversionsModule] : []),
      ],
      providers: [AdminService],
    };
  }
}
