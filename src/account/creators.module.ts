import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CreatorEntity } from './creator.entity';
import { CreatorsService } from './creators.service';
import { PlanEntity } from './plan.entity';

/** Creators and their plans; used by the API (account) and the admin CLI. */
@Module({
  imports: [TypeOrmModule.forFeature([CreatorEntity, PlanEntity])],
  providers: [CreatorsService],
  exports: [CreatorsService],
})
export class CreatorsModule {}
