import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { billingPeriodOf } from '../account/billing-period';
import { Clock } from '../common/clock';
import type { NetworkId } from '../networks/network-ids';

/** What the edge needs of a creator: limits, quota and the affiliate ids to route with. */
export interface CreatorEdgeProfile {
  creatorId: string;
  edgeClicksPerMinute: number;
  includedClicks: number;
  /** Free plan: the quota is a hard stop, no overage. */
  isHardCap: boolean;
  affiliateIds: Partial<Record<NetworkId, string>>;
  /** The affiliate ids as one string: part of the key of memoised routing decisions. */
  accountsKey: string;
  periodId: string;
}

/**
 * Kept one second in process: a plan change, an included-clicks change or a network account
 * change made with the CLI (another process, maybe without Redis) reaches the edge within a
 * second, and the database sees one read per creator per second per node at most.
 */
const PROFILE_TTL_MS = 1_000;

interface ProfileRow {
  edge_clicks_per_minute: number;
  included_clicks: number;
  is_free: boolean;
  accounts: [NetworkId, string][] | null;
}

@Injectable()
export class CreatorEdgeProfilesService {
  private readonly cache = new LRUCache<string, Promise<CreatorEdgeProfile | null>>({
    max: 100_000,
    ttl: PROFILE_TTL_MS,
  });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  /** The last profile loaded per creator: served while PostgreSQL is unreachable. */
  private readonly lastKnown = new LRUCache<string, CreatorEdgeProfile>({ max: 100_000 });

  find(creatorId: string): Promise<CreatorEdgeProfile | null> {
    const cached = this.cache.get(creatorId);
    if (cached !== undefined) return cached;
    // Caching the promise: concurrent clicks of one creator share one load.
    const loading = this.load(creatorId).then(
      (profile) => {
        if (profile !== null) this.lastKnown.set(creatorId, profile);
        return profile;
      },
      (error: unknown) => {
        this.cache.delete(creatorId);
        const stale = this.lastKnown.get(creatorId);
        if (stale === undefined) throw error;
        return stale;
      },
    );
    this.cache.set(creatorId, loading);
    return loading;
  }

  private async load(creatorId: string): Promise<CreatorEdgeProfile | null> {
    const period = billingPeriodOf(this.clock.nowMs());
    const rows: ProfileRow[] = await this.dataSource.query(
      `SELECT p.edge_clicks_per_minute,
              COALESCE(c.included_clicks_override, p.included_clicks) AS included_clicks,
              p.id = 'free' AS is_free,
              (SELECT json_agg(json_build_array(a.network_id, a.affiliate_id) ORDER BY a.network_id)
                 FROM network_accounts a WHERE a.creator_id = c.id AND a.is_active) AS accounts
         FROM creators c JOIN plans p ON p.id = c.plan_id
        WHERE c.id = $1`,
      [creatorId],
    );
    const row = rows[0];
    if (row === undefined) return null;
    const accounts = row.accounts ?? [];
    return {
      creatorId,
      edgeClicksPerMinute: row.edge_clicks_per_minute,
      includedClicks: row.included_clicks,
      isHardCap: row.is_free,
      affiliateIds: Object.fromEntries(accounts),
      accountsKey: JSON.stringify(accounts),
      periodId: period.id,
    };
  }
}
