import { Module } from '@nestjs/common';
import { AccountController } from './account.controller';
import { AccountService } from './account.service';
import { ClickPipelineModule } from '../analytics/click-pipeline.module';
import { CreatorsModule } from './creators.module';

@Module({
  imports: [CreatorsModule, ClickPipelineModule],
  controllers: [AccountController],
  providers: [AccountService],
})
export class AccountModule {}
