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

/** What the edge needs of a creator's plan, read in batches on its hot path. */
export interface CreatorEdgeLimits {
  creatorId: string;
  edgeClicksPerMinute: number;
  /** The creator's override, else the plan's. */
  includedClicks: number;
  /** The plan row's hard cap (Free): no overage past the included clicks. */
  isHardCap: boolean;
}

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

  /** The edge limits of each creator that exists, in one statement (unknown ids are absent). */
  async readEdgeLimits(creatorIds: string[]): Promise<CreatorEdgeLimits[]> {
    const rows: {
      creator_id: string;
      edge_clicks_per_minute: number;
      included_clicks: number;
      is_hard_cap: boolean;
    }[] = await this.creators.manager.query(
      `SELECT c.id AS creator_id, p.edge_clicks_per_minute, p.is_hard_cap,
              COALESCE(c.included_clicks_override, p.included_clicks) AS included_clicks
         FROM creators c JOIN plans p ON p.id = c.plan_id
        WHERE c.id = ANY($1::varchar[])`,
      [creatorIds],
    );
    return rows.map((row) => ({
      creatorId: row.creator_id,
      edgeClicksPerMinute: row.edge_clicks_per_minute,
      includedClicks: row.included_clicks,
      isHardCap: row.is_hard_cap,
    }));
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

  async findPlanOrThrow(planId: PlanId): Promise<PlanEntity> {
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
