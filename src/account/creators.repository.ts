import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { CreatorEntity } from './creator.entity';
import type { PlanEntity, PlanId } from './plan.entity';
import type { RoutingMode } from '../routing/engine/routing-types';

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
  /** Click ids to the networks for the creator's links that do not say (README "Conversions"). */
  attribution: boolean;
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

/** The columns a new creator is inserted with (the rest are the table's defaults). */
type NewCreatorRow = Pick<
  CreatorEntity,
  | 'id'
  | 'email'
  | 'displayName'
  | 'planId'
  | 'billingCycle'
  | 'includedClicksOverride'
  | 'trialEndsAt'
>;

/**
 * The `creators` table and its edge-profile change log (`edge_profile_changes`, written by
 * triggers on creators and plans); the edge's batch read joins the plan row.
 */
@Injectable()
export class CreatorsRepository {
  constructor(
    @InjectRepository(CreatorEntity) private readonly creators: Repository<CreatorEntity>,
  ) {}

  existsWithEmail(email: string): Promise<boolean> {
    return this.creators.existsBy({ email });
  }

  async insert(row: NewCreatorRow): Promise<void> {
    await this.creators.insert(row);
  }

  async updateSettings(
    creatorId: string,
    settings: Pick<CreatorEntity, 'planId' | 'includedClicksOverride' | 'routingMode'>,
  ): Promise<void> {
    await this.creators.update({ id: creatorId }, settings);
  }

  /** PATCH /v1/account/settings: the settings given change (undefined ones stay). */
  async updateAccountSettings(
    creatorId: string,
    settings: Partial<Pick<CreatorEntity, 'attribution' | 'routingMode'>>,
  ): Promise<void> {
    const given = Object.fromEntries(
      Object.entries(settings).filter(([, value]) => value !== undefined),
    ) as Partial<Pick<CreatorEntity, 'attribution' | 'routingMode'>>;
    await this.creators.update({ id: creatorId }, given);
  }

  /** The creator with its plan row; null when there is no such creator. */
  findWithPlan(creatorId: string): Promise<(CreatorEntity & { plan?: PlanEntity }) | null> {
    return this.creators.findOne({ where: { id: creatorId }, relations: { plan: true } });
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
      attribution: boolean;
    }[] = await this.creators.query(
      `SELECT c.id AS creator_id, c.plan_id, p.edge_clicks_per_minute, p.is_hard_cap, c.routing_mode, c.attribution,
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
      attribution: row.attribution,
    }));
  }

  /** CreatorsService.readEdgeProfileChanges: the log after a moment, with the database's time. */
  async readEdgeProfileChanges(
    since: Date | null,
    lookBackMs: number,
  ): Promise<EdgeProfileChanges> {
    const rows: {
      read_at: Date;
      id: string | null;
      creator_id: string | null;
      changed_at: Date | null;
    }[] = await this.creators.query(
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

  async pruneEdgeProfileChanges(ageMs: number): Promise<void> {
    await this.creators.query(
      `DELETE FROM edge_profile_changes WHERE changed_at < now() - $1 * interval '1 millisecond'`,
      [ageMs],
    );
  }
}
