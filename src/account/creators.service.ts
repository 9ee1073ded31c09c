import { Injectable } from '@nestjs/common';
import { newUlid } from '../common/ids';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { RoutingMode } from '../routing/engine/routing-types';
import { CreatorEntity } from './creator.entity';
import { CreatorEdgeLimits, CreatorsRepository, EdgeProfileChanges } from './creators.repository';
import { PlanEntity, PlanId } from './plan.entity';
import { PlansRepository } from './plans.repository';

export type { CreatorEdgeLimits, EdgeProfileChange } from './creators.repository';

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
  routingMode?: RoutingMode;
}

@Injectable()
export class CreatorsService {
  constructor(
    private readonly creators: CreatorsRepository,
    private readonly plans: PlansRepository,
  ) {}

  async create(input: NewCreator): Promise<CreatorWithPlan> {
    await this.findPlanOrThrow(input.planId);
    const id = newUlid();
    const email = (input.email ?? `creator-${id.toLowerCase()}@example.com`).toLowerCase();
    if (await this.creators.existsWithEmail(email)) {
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
    if (changes.routingMode !== undefined) creator.routingMode = changes.routingMode;
    await this.creators.updateSettings(creatorId, {
      planId: creator.planId,
      includedClicksOverride: creator.includedClicksOverride,
      routingMode: creator.routingMode,
    });
    return this.findWithPlanOrThrow(creatorId);
  }

  /** The edge limits of each creator that exists, in one statement (unknown ids are absent). */
  readEdgeLimits(creatorIds: string[]): Promise<CreatorEdgeLimits[]> {
    return this.creators.readEdgeLimits(creatorIds);
  }

  /**
   * The edge-profile changes logged after `since` minus `lookBackMs` (after the database's
   * now minus `lookBackMs` when `since` is null), in one statement that also reads the
   * database's time. The look-back is the caller's allowance for a change that commits
   * after its `changed_at`, which is when the statement that made it ran.
   */
  readEdgeProfileChanges(since: Date | null, lookBackMs: number): Promise<EdgeProfileChanges> {
    return this.creators.readEdgeProfileChanges(since, lookBackMs);
  }

  /** Deletes the change log's rows older than `ageMs`: readers look back seconds, not hours. */
  pruneEdgeProfileChanges(ageMs: number): Promise<void> {
    return this.creators.pruneEdgeProfileChanges(ageMs);
  }

  async findWithPlanOrThrow(creatorId: string): Promise<CreatorWithPlan> {
    const creator = await this.creators.findWithPlan(creatorId);
    if (creator?.plan === undefined) {
      throw new AppError(ErrorCode.CREATOR_NOT_FOUND, `No creator with id ${creatorId}.`);
    }
    return creator as CreatorWithPlan;
  }

  async findPlanOrThrow(planId: PlanId): Promise<PlanEntity> {
    const plan = await this.plans.findById(planId);
    if (plan === null) {
      throw new AppError(
        ErrorCode.VALIDATION_ERROR,
        `Plan ${planId} is not in the database; run \`npm run db:seed\`.`,
      );
    }
    return plan;
  }
}
