import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountController } from './account.controller';
import { AccountSettingsService } from './account-settings.service';
import { AccountService } from './account.service';
import { CreatorEntity } from './creator.entity';
import { CreatorsModule } from './creators.module';

@Module({})
export class AccountModule {
  /**
   * `usage` is the module that exports ClickUsage (the clicks module, which sits above account
   * and is wired in by the app).
   */
  static withClickUsageFrom(usage: NonNullable<ModuleMetadata['imports']>[number]): DynamicModule {
    return {
      module: AccountModule,
      imports: [TypeOrmModule.forFeature([CreatorEntity]), CreatorsModule, usage],
      controllers: [AccountController],
      providers: [AccountService, AccountSettingsService],
    };
  }
}
