import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { AccountController } from './account.controller';
import { AccountService } from './account.service';
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
      imports: [CreatorsModule, usage],
      controllers: [AccountController],
      providers: [AccountService],
    };
  }
}
