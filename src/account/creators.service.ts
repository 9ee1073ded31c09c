import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { newUlid } from '../common/ids';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { RoutingMode } from '../routing/engine/routing-types';
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
  /** The plan's id (the usage warning names it). */
  planId: PlanId;
  edgeClicksPerMinute: number;
  /** The creator's override, else the plan's. */
  includedClicks: number;
  /** The plan row's hard cap (Free): no overage past the included clicks. */
  isHardCap: boolean;
  /** How the creator's links are scored (docs/routing.md section 10). */
  routingMode: RoutingMode;
}

/** A row of the edge-profile change log (`edge_profile_changes`, written by triggers). */
export interface EdgeProfileChange {
  id: string;
  /** Null when a plan changed: every creator's profile. */
  creatorId: string | null;
  changedAt: Date;
}

/** One read of the change log, with the database's time of the read. */
export interface EdgeProfileChanges {
  readAt: Date;
  changes: EdgeProfileChange[];
}

export interface CreatorChanges {
  planId?: PlanId;
  includedClicksOverride?: number | null;
  routingMode?: RoutingMode;
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
    if (changes.routingMode !== undefined) creator.routingMode = changes.routingMode;
    await this.creators.update(
      { id: creatorId },
      {
        planId: creator.planId,
        includedClicksOverride: creator.includedClicksOverride,
        routingMode: creator.routingMode,
      },
    );
    return this.findWithPlanOrThrow(creatorId);
  }

  /** The edge limits of each creator that exists, in one statement (unknown ids are absent). */
  async readEdgeLimits(creatorIds: string[]): Promise<CreatorEdgeLimits[]> {
    const rows: {
      creator_id: string;
      plan_id: PlanId;
      edge_clicks_per_minute: number;
      included_clicks: number;
      is_hard_cap: boolean;
      routing_mode: RoutingMode;
    }[] = await this.creators.manager.query(
      `SELECT c.id AS creator_id, c.plan_id, p.edge_clicks_per_minute, p.is_hard_cap, c.routing_mode,
              COALESCE(c.included_clicks_override, p.included_clicks) AS included_clicks
         FROM creators c JOIN plans p ON p.id = c.plan_id
        WHERE c.id = ANY($1::varchar[])`,
      [creatorIds],
    );
    return rows.map((row) => ({
      creatorId: row.creator_id,
      planId: row.plan_id,
      edgeClicksPerMinute: row.edge_clicks_per_minute,
      includedClicks: row.included_clicks,
      isHardCap: row.is_hard_cap,
      routingMode: row.routing_mode,
    }));
  }

  /**
   * The edge-profile changes logged after `since` minus `lookBackMs` (after the database's
   * now minus `lookBackMs` when `since` is null), in one statement that also reads the
   * database's time. The look-back is the caller's allowance for a change that commits
   * after its `changed_at`, which is when the statement that made it ran.
   */
  async readEdgeProfileChanges(
    since: Date | null,
    lookBackMs: number,
  ): Promise<EdgeProfileChanges> {
    const rows: {
      read_at: Date;
      id: string | null;
      creator_id: string | null;
      changed_at: Date | null;
    }[] = await this.creators.manager.query(
      `SELECT now() AS read_at, l.id, l.creator_id, l.changed_at
         FROM (SELECT COALESCE($1::timestamptz, now()) - $2 * interval '1 millisecond' AS after) AS t
         LEFT JOIN edge_profile_changes l ON l.changed_at > t.after
        ORDER BY l.id`,
      [since, lookBackMs],
    );
    const changes: EdgeProfileChange[] = [];
    for (const row of rows) {
      if (row.id === null || row.changed_at === null) continue; // the row of an empty join
      changes.push({ id: row.id, creatorId: row.creator_id, changedAt: row.changed_at });
    }
    return { readAt: rows[0].read_at, changes };
  }

  /** Deletes the change log's rows older than `ageMs`: readers look back seconds, not hours. */
  async pruneEdgeProfileChanges(ageMs: number): Promise<void> {
    await this.creators.manager.query(
      `DELETE FROM edge_profile_changes WHERE changed_at < now() - $1 * interval '1 millisecond'`,
      [ageMs],
    );
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
