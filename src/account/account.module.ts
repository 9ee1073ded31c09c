import { Module } from '@nestjs/common';
import { AccountController } from './account.controller';
import { AccountService } from './account.service';
import { CreatorsModule } from './creators.module';
import { QuotaModule } from './quota.module';

@Module({
  imports: [CreatorsModule, QuotaModule],
  controllers: [AccountController],
  providers: [AccountService],
})
export class AccountModule {}
