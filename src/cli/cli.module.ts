import { DynamicModule, Module } from '@nestjs/common';
import { CreatorsModule } from '../account/creators.module';
import { AuthModule } from '../auth/auth.module';
import { CommonModule } from '../common/common.module';
import { ConfigModule } from '../config/config.module';
import { AppConfig } from '../config/env';
import { DatabaseModule } from '../database/database.module';
import { FxModule } from '../fx/fx.module';
import { NetworksModule } from '../networks/networks.module';
import { AdminService } from './admin.service';

/** What the admin CLI needs: the database-backed services, no HTTP, no Redis, no cron jobs. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        CommonModule.forRoot(),
        DatabaseModule,
        CreatorsModule,
        AuthModule,
        NetworksModule,
        FxModule,
      ],
      providers: [AdminService],
    };
  }
}
