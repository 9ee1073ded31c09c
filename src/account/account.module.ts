import { Module } from '@nestjs/common';
import { AccountController } from './account.controller';
import { AccountService } from './account.service';
import { CreatorsModule } from './creators.module';

@Module({
  imports: [CreatorsModule],
  controllers: [AccountController],
  providers: [AccountService],
})
export class AccountModule {}
