import type { KeyEnvironment } from '../common/access/auth-context';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DeepLinkStatus, HealthStatus, LinkEntity } from './link.entity';

/** A probe's verdicts, as the probes module classified them. */
export interface ProbeOutcome {
  deepLinkStatus: Extract<DeepLinkStatus, 'validated' | 'invalid'>;
  healthStatus: Exclude<HealthStatus, 'unknown'>;
  /** When the probe started; stored as deepLinkCheckedAt and lastHealthCheckAt. */
  checkedAt: Date;
}

/** A stored probe result: whose link it is and the statuses it replaced. */
export interface RecordedProbeChange {
  creatorId: string;
  environment: KeyEnvironment;
  previousDeepLinkStatus: DeepLinkStatus;
  previousHealthStatus: HealthStatus;
}

/** What a re-probe needs of a link. */
export interface ProbeTarget {
  id: string;
  routedUrl: string;
}

export interface SweepScope {
  /** Only this creator's links (an operator's targeted re-check); all links when unset. */
  creatorId?: string;
  limit: number;
}

/** Deep-link results stored before these instants have outlived their TTL. */
export interface ExpiryCutoffs {
  validatedBefore: Date;
  invalidBefore: Date;
}

/**
 * The probe columns of `links`, in raw SQL: TypeORM's update builder would also bump
 * `updated_at`, and a background probe is not an edit of the link. The links module owns
 * the table; probes reach these through LinkProbeStatesService.
 */
@Injectable()
export class LinkProbeStatesRepository {
  constructor(@InjectRepository(LinkEntity) private readonly links: Repository<LinkEntity>) {}

  /**
   * Writes both probe results on a live link. A result older than the one stored is
   * dropped, so of two overlapping probes of a link the one started last wins.
   * Returns what was stored before (for link.health_changed), or null when nothing was
   * written (link gone, soft-deleted or newer result).
   */
  async recordOutcome(linkId: string, outcome: ProbeOutcome): Promise<RecordedProbeChange | null> {
    const [rows] = await this.links.manager.query<[RecordedProbeChange[], number]>(
      `WITH previous AS (
         SELECT id, deep_link_status, health_status FROM links
          WHERE id = $1 AND deleted_at IS NULL
            AND (deep_link_checked_at IS NULL OR deep_link_checked_at <= $4)
          FOR UPDATE)
       UPDATE links
          SET deep_link_status = $2, deep_link_checked_at = $4,
              health_status = $3, last_health_check_at = $4
         FROM previous
        WHERE links.id = previous.id
       RETURNING links.creator_id AS "creatorId", links.environment,
                 previous.deep_link_status AS "previousDeepLinkStatus",
                 previous.health_status AS "previousHealthStatus"`,
      [linkId, outcome.deepLinkStatus, outcome.healthStatus, outcome.checkedAt],
    );
    return rows[0] ?? null;
  }

  /**
   * Moves live links whose deep-link result outlived its TTL (validated 72 h, invalid 24 h)
   * to ttl_expired, oldest first, and returns them. Rows another sweep is moving are
   * skipped, so concurrent nodes never expire (and re-probe) the same link twice.
   */
  async expireDue(cutoffs: ExpiryCutoffs, scope: SweepScope): Promise<ProbeTarget[]> {
    const [rows] = await this.links.manager.query<[ProbeTarget[], number]>(
      `UPDATE links SET deep_link_status = 'ttl_expired'
        WHERE id IN (
          SELECT id FROM links
           WHERE deleted_at IS NULL
             AND ((deep_link_status = 'validated'
                   AND (deep_link_checked_at IS NULL OR deep_link_checked_at < $1))
               OR (deep_link_status = 'invalid'
                   AND (deep_link_checked_at IS NULL OR deep_link_checked_at < $2)))
             AND ($3::varchar IS NULL OR creator_id = $3)
           ORDER BY deep_link_checked_at NULLS FIRST
           LIMIT $4
           FOR UPDATE SKIP LOCKED)
        RETURNING id, routed_url AS "routedUrl"`,
      [cutoffs.validatedBefore, cutoffs.invalidBefore, scope.creatorId ?? null, scope.limit],
    );
    return rows;
  }

  /**
   * Live links waiting for a probe that never landed: ttl_expired ones, and unchecked ones
   * created before `createdBefore` (their probe was lost in a restart, dropped from a full
   * queue, or never run while probes were switched off).
   */
  findStranded(createdBefore: Date, scope: SweepScope): Promise<ProbeTarget[]> {
    return this.links.manager.query<ProbeTarget[]>(
      `SELECT id, routed_url AS "routedUrl" FROM links
        WHERE deleted_at IS NULL
          AND (deep_link_status = 'ttl_expired'
            OR (deep_link_status = 'unchecked' AND created_at < $1))
          AND ($2::varchar IS NULL OR creator_id = $2)
        ORDER BY created_at
        LIMIT $3`,
      [createdBefore, scope.creatorId ?? null, scope.limit],
    );
  }
}
