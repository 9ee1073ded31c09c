import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { newUlid } from '../common/ids';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { CreatorEntity } from './creator.entity';
import { PlanEntity, PlanId } from './plan.entity';

export interface NewCreator {
  planId: PlanId;
  email?: string;
  displayName?: string;
  includedClicksOverride?: number | null;
}

export type CreatorWithPlan = CreatorEntity & { plan: PlanEntity };

export interface CreatorChanges {
  planId?: PlanId;
  includedClicksOverride?: number | null;
}

@Injectable()
export class CreatorsService {
  constructor(
    @InjectRepository(CreatorEntity) private readonly creators: Repository<CreatorEntity>,
    @InjectRepository(PlanEntity) private readonly plans: Repository<PlanEntity>,
  ) {}

  async create(input: NewCreator): Promise<CreatorWithPlan> {
    await this.findPlanOrThrow(input.planId);
    const id = newUlid();
    const email = (input.email ?? `creator-${id.toLowerCase()}@example.com`).toLowerCase();
    if (await this.creators.existsBy({ email })) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, `A creator with email ${email} exists.`, {
        email: ['is already used by another creator'],
      });
    }
    await this.creators.insert({
      id,
      email,
      displayName: input.displayName ?? `Creator ${id.slice(-6)}`,
      planId: input.planId,
      billingCycle: 'monthly',
      includedClicksOverride: input.includedClicksOverride ?? null,
      trialEndsAt: null,
    });
    return this.findWithPlanOrThrow(id);
  }

  async update(creatorId: string, changes: CreatorChanges): Promise<CreatorWithPlan> {
    const creator = await this.findWithPlanOrThrow(creatorId);
    if (changes.planId !== undefined) {
      await this.findPlanOrThrow(changes.planId);
      creator.planId = changes.planId;
    }
    if (changes.includedClicksOverride !== undefined) {
      creator.includedClicksOverride = changes.includedClicksOverride;
    }
    await this.creators.update(
      { id: creatorId },
      { planId: creator.planId, includedClicksOverride: creator.includedClicksOverride },
    );
    return this.findWithPlanOrThrow(creatorId);
  }

  async findWithPlanOrThrow(creatorId: string): Promise<CreatorWithPlan> {
    const creator = await this.creators.findOne({
      where: { id: creatorId },
      relations: { plan: true },
    });
    if (creator?.plan === undefined) {
      throw new AppError(ErrorCode.CREATOR_NOT_FOUND, `No creator with id ${creatorId}.`);
    }
    return creator as CreatorWithPlan;
  }

  private async findPlanOrThrow(planId: PlanId): Promise<PlanEntity> {
    const plan = await this.plans.findOneBy({ id: planId });
    if (plan === null) {
      throw new AppError(
        ErrorCode.VALIDATION_ERROR,
        `Plan ${planId} is not in the database; run \`npm run db:seed\`.`,
      );
    }
    return plan;
  }
}
