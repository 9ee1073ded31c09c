import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CreatorEntity } from './creator.entity';
import { CreatorsRepository } from './creators.repository';
import { CreatorsService } from './creators.service';
import { PlanEntity } from './plan.entity';
import { PlansRepository } from './plans.repository';

/** Creators and their plans; used by the API (account) and the admin CLI. */
@Module({
  imports: [TypeOrmModule.forFeature([CreatorEntity, PlanEntity])],
  providers: [CreatorsRepository, PlansRepository, CreatorsService],
  exports: [CreatorsService, CreatorsRepository],
})
export class CreatorsModule {}
