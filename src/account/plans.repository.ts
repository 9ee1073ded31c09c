import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PlanEntity, PlanId } from './plan.entity';

/** The `plans` table (rows written by the seeds and migrations). */
@Injectable()
export class PlansRepository {
  constructor(@InjectRepository(PlanEntity) private readonly plans: Repository<PlanEntity>) {}

  findById(planId: PlanId): Promise<PlanEntity | null> {
    return this.plans.findOneBy({ id: planId });
  }
}
