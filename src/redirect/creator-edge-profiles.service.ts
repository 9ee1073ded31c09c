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
 * Fresh for one second in process: a plan change, an included-clicks change or a network
 * account change made with the CLI (another process, maybe without Redis) reaches the edge
 * about a second later, and the database sees one read per creator per second per node.
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
  /**
   * Stale-while-revalidate: an expired profile is still served while its reload runs in the
   * background, so no click waits for PostgreSQL once a creator is known, and a reload that
   * fails (PostgreSQL down) keeps the last profile serving.
   */
  private readonly cache = new LRUCache<string, CreatorEdgeProfile | 'missing'>({
    max: 100_000,
    ttl: PROFILE_TTL_MS,
    allowStale: true,
    allowStaleOnFetchRejection: true,
    noDeleteOnFetchRejection: true,
    fetchMethod: async (creatorId) => (await this.load(creatorId)) ?? 'missing',
  });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async find(creatorId: string): Promise<CreatorEdgeProfile | null> {
    const profile = await this.cache.fetch(creatorId);
    return profile === undefined || profile === 'missing' ? null : profile;
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
