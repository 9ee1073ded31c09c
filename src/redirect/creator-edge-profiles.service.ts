import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CreatorEdgeLimits, CreatorsService } from '../account/creators.service';
import { SingleFlight } from '../common/cache/single-flight';
import { Clock } from '../common/clock';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { AppMetrics } from '../metrics/app-metrics';
import type { NetworkId } from '../networks/network-ids';
import { NetworkAccountsService } from '../networks/network-accounts.service';

/** What the edge needs of a creator: limits, quota and the affiliate ids to route with. */
export interface CreatorEdgeProfile {
  creatorId: string;
  edgeClicksPerMinute: number;
  includedClicks: number;
  /** The plan row is a hard cap (Free): the quota is a hard stop, no overage. */
  isHardCap: boolean;
  affiliateIds: Partial<Record<NetworkId, string>>;
  /**
   * A short tag that is equal for equal sets of affiliate ids: part of the key of memoised
   * routing decisions (the ids themselves would make every key hundreds of characters long).
   */
  accountsTag: string;
}

/**
 * How often the profiles in use are read again: a plan, included-clicks or network-account
 * change made with the CLI (another process, maybe without Redis) reaches the edge about a
 * second later.
 */
const PROFILE_REFRESH_MS = 1_000;
/** One refresh statement covers at most this many creators. */
const REFRESH_CHUNK = 1_000;
/** While PostgreSQL is down, failed refreshes are logged at most this often, not once a second. */
const REFRESH_WARNING_INTERVAL_MS = 10_000;

/** A cache entry (the LRU holds objects, and an unknown creator is remembered as null). */
interface CachedProfile {
  profile: CreatorEdgeProfile | null;
}

/**
 * Creator profiles for the edge, served from memory so that no click waits for PostgreSQL
 * once its creator is known. Instead of each profile expiring on its own (which, under load,
 * turns into a burst of one query per creator every second), one timer reads every profile
 * clicked since the last pass, in one batch read of the account module (plans and limits) and
 * one of the networks module (affiliate ids), each a single statement. A profile is served
 * from memory however old it is (a creator idle for an hour, or PostgreSQL down or stalled):
 * its click puts it in the next pass, and a pass that fails keeps the last profiles serving.
 * Only a creator never seen (or evicted from the LRU) is read on the click itself.
 *
 * Not a RefreshingValue per creator: that helper re-reads one value when a read finds it due,
 * which here would be the per-creator query burst the batch refresh avoids. The per-key pieces
 * it shares with that helper are used directly: SingleFlight for the reads on a click and
 * ThrottledLogger for the failures.
 */
@Injectable()
export class CreatorEdgeProfilesService implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new LRUCache<string, CachedProfile>({ max: 100_000 });
  private readonly loading = new SingleFlight<string, CreatorEdgeProfile | null>();
  private readonly refreshWarnings: ThrottledLogger;
  /**
   * Creators clicked since the last refresh, the only ones refreshed: the refresh then costs
   * the event loop what the last second's clicks touched, not a walk over every cached profile.
   */
  private readonly inUse = new Set<string>();
  private readonly accountTags = new Map<string, string>();
  private nextAccountTag = 0;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly creators: CreatorsService,
    private readonly networkAccounts: NetworkAccountsService,
    private readonly clock: Clock,
    private readonly metrics: AppMetrics,
  ) {
    this.refreshWarnings = new ThrottledLogger(
      CreatorEdgeProfilesService.name,
      REFRESH_WARNING_INTERVAL_MS,
      clock,
    );
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.refreshInUse(), PROFILE_REFRESH_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    await this.refreshing;
  }

  /**
   * The creator's profile, or null for an unknown creator. A value, not a promise, when the
   * profile is in memory, so the redirect's common path does not wait a microtask for it.
   */
  find(creatorId: string): CreatorEdgeProfile | null | Promise<CreatorEdgeProfile | null> {
    const cached = this.cache.get(creatorId);
    if (cached !== undefined) {
      // Never a wait for PostgreSQL once the creator is known: the next pass reads it again.
      this.inUse.add(creatorId);
      this.metrics.countEdgeCacheLookup('creator_profile', 'memory');
      return cached.profile;
    }
    // Counted as a database read even when it shares one already under way: the click waits for it.
    this.metrics.countEdgeCacheLookup('creator_profile', 'database');
    return this.loadOne(creatorId);
  }

  /** Reads every profile clicked since the last pass; one statement per thousand creators. */
  async refreshInUse(): Promise<void> {
    // A refresh under way read its creators before the latest clicks: wait, then read these.
    while (this.refreshing !== null) await this.refreshing;
    if (this.inUse.size === 0) return;
    const ids = [...this.inUse];
    this.inUse.clear();
    this.refreshing = (async () => {
      for (let start = 0; start < ids.length; start += REFRESH_CHUNK) {
        await this.load(ids.slice(start, start + REFRESH_CHUNK));
      }
    })()
      .catch((error: unknown) => this.warnRefreshFailed(error))
      .finally(() => (this.refreshing = null));
    await this.refreshing;
  }

  /**
   * A creator never seen, read on its click; concurrent clicks share the read. With
   * PostgreSQL down it fails, and the click answers 503 (RedirectFronts).
   */
  private loadOne(creatorId: string): Promise<CreatorEdgeProfile | null> {
    return this.loading.run(creatorId, () =>
      this.load([creatorId]).then(() => this.cache.get(creatorId)?.profile ?? null),
    );
  }

  /** Reads the given creators and caches each profile, null for a creator that does not exist. */
  private async load(creatorIds: string[]): Promise<void> {
    const [limits, accounts] = await Promise.all([
      this.creators.readEdgeLimits(creatorIds),
      this.networkAccounts.readActiveAffiliateIds(creatorIds),
    ]);
    const found = new Map(
      limits.map((row) => [row.creatorId, this.toProfile(row, accounts.get(row.creatorId) ?? [])]),
    );
    for (const creatorId of creatorIds) {
      const previous = this.cache.get(creatorId)?.profile ?? null;
      const profile = found.get(creatorId) ?? null;
      // An unchanged profile stays the same object: the click router's memos hold per
      // profile object (and its affiliate ids), so a new object each second would throw
      // every link's memoised routes away each second.
      this.cache.set(creatorId, {
        profile: isSameProfile(previous, profile) ? previous : profile,
      });
    }
  }

  private toProfile(
    limits: CreatorEdgeLimits,
    accounts: [NetworkId, string][],
  ): CreatorEdgeProfile {
    return {
      ...limits,
      affiliateIds: Object.fromEntries(accounts),
      accountsTag: this.tagOf(JSON.stringify(accounts)),
    };
  }

  /**
   * Interns a set of affiliate ids as a short tag. Tags are never reused (the counter only
   * grows, even when the table is cleared to bound it), so a memoised decision can never be
   * found under another set's tag.
   */
  private tagOf(accountsJson: string): string {
    let tag = this.accountTags.get(accountsJson);
    if (tag === undefined) {
      if (this.accountTags.size >= 200_000) this.accountTags.clear();
      tag = `a${(this.nextAccountTag++).toString(36)}`;
      this.accountTags.set(accountsJson, tag);
    }
    return tag;
  }

  private warnRefreshFailed(error: unknown): void {
    this.refreshWarnings.warn(
      'refresh',
      'Creator profiles not refreshed, serving the last ones',
      error,
    );
  }
}

/**
 * Every field but the affiliate ids, whose content accountsTag interns: a field added to the
 * profile does not compile here until it is compared (else a change to it would not reach the edge).
 */
const COMPARED_FIELDS = Object.keys({
  creatorId: true,
  edgeClicksPerMinute: true,
  includedClicks: true,
  isHardCap: true,
  accountsTag: true,
} satisfies Record<Exclude<keyof CreatorEdgeProfile, 'affiliateIds'>, true>) as Exclude<
  keyof CreatorEdgeProfile,
  'affiliateIds'
>[];

/** Equal content: the same limits and the same affiliate ids. */
function isSameProfile(a: CreatorEdgeProfile | null, b: CreatorEdgeProfile | null): boolean {
  if (a === null || b === null) return a === b;
  return COMPARED_FIELDS.every((field) => a[field] === b[field]);
}
