import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CreatorEdgeLimits, CreatorsService, EdgeProfileChange } from '../account/creators.service';
import type { PlanId } from '../account/plan.entity';
import { SingleFlight } from '../common/cache/single-flight';
import { Clock } from '../common/clock';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { AppMetrics } from '../metrics/app-metrics';
import type { NetworkId } from '../networks/network-ids';
import { NetworkAccountsService } from '../networks/network-accounts.service';
import type { RoutingMode } from '../routing/engine/routing-types';

/**
 * What the edge needs of a creator: limits, quota, the affiliate ids to route with and the
 * routing mode (CreatorEdgeLimits).
 */
export interface CreatorEdgeProfile {
  creatorId: string;
  planId: PlanId;
  edgeClicksPerMinute: number;
  includedClicks: number;
  /** The plan row is a hard cap (Free): the quota is a hard stop, no overage. */
  isHardCap: boolean;
  routingMode: RoutingMode;
  /** The creator's attribution setting: links that do not say follow it. */
  attribution: boolean;
  affiliateIds: Partial<Record<NetworkId, string>>;
  /**
   * A short tag that is equal for equal sets of affiliate ids: part of the key of memoised
   * routing decisions (the ids themselves would make every key hundreds of characters long).
   */
  accountsTag: string;
}

/**
 * How often the change log is read: a plan, included-clicks or network-account change,
 * made by any process (the admin CLI, maybe without Redis, or raw SQL: the database's
 * triggers log it), reaches the edge about a second later.
 */
const PROFILE_REFRESH_MS = 1_000;
/**
 * How far back each read of the change log reaches before the previous one: a change's row
 * carries the time its statement ran but becomes visible only when its transaction commits,
 * so a transaction up to this long is still seen. Rows seen before are not read twice.
 */
const CHANGE_LOOK_BACK_MS = 10_000;
/**
 * The safety net: this often, the creators clicked since the last such pass are read as
 * well, changed or not, so a change the log missed (a transaction longer than the
 * look-back, a trigger disabled for a bulk load) reaches the edge within a minute.
 */
const IN_USE_REFRESH_MS = 60_000;
/** The log's rows older than this are deleted, at most once per PRUNE_INTERVAL_MS. */
const CHANGE_LOG_RETENTION_MS = 3_600_000;
/** Every server prunes: a DELETE over an indexed range, rare enough to cost nothing. */
const PRUNE_INTERVAL_MS = 600_000;
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
 * turns into a burst of one query per creator every second), one timer reads, every second,
 * the database's change log (`edge_profile_changes`, written by triggers on creators, plans
 * and network accounts, so changes by any process are in it) and reads again only the cached
 * creators it names, or every cached creator after a plan change; with nothing changed, a
 * pass is one small statement. (Reading again every creator clicked in the last second, as
 * before, cost PostgreSQL, with 10,000 creators clicked each second, ten reads a second of
 * the whole network_accounts table, for changes that almost never happened.) Once a minute
 * a pass also reads the creators clicked since the last such pass: the safety net for a
 * change the log missed. Reads are batch reads of the account module (plans and limits) and
 * the networks module (affiliate ids), a statement each per thousand creators.
 *
 * A profile is served from memory however old it is (a creator idle for an hour, or
 * PostgreSQL down or stalled): a pass that fails keeps the last profiles serving, and the
 * next one that succeeds reads the log from where the last success left off. Only a creator
 * never seen (or evicted from the LRU) is read on the click itself.
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
   * Creators clicked since the last in-use pass, the ones it reads: that pass then costs the
   * event loop what the last minute's clicks touched, not a walk over every cached profile.
   */
  private readonly inUse = new Set<string>();
  private readonly accountTags = new Map<string, string>();
  private nextAccountTag = 0;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  /** The database's time of the last successful read of the change log. */
  private changesReadAt: Date | null = null;
  /** The log rows already acted on that the look-back still returns: id → changedAt (ms). */
  private readonly changesSeen = new Map<string, number>();
  private lastInUsePassMs: number;
  private lastPruneMs = -Infinity;

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
    this.lastInUsePassMs = clock.nowMs();
  }

  onModuleInit(): void {
    this.timer = setInterval(() => {
      // A pass still under way (PostgreSQL slow) is not queued behind: the next tick reads.
      if (this.refreshing !== null) return;
      const inUseDue = this.clock.nowMs() - this.lastInUsePassMs >= IN_USE_REFRESH_MS;
      void (inUseDue ? this.refreshInUse() : this.refreshChanged());
    }, PROFILE_REFRESH_MS);
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
      // Never a wait for PostgreSQL once the creator is known: passes read it again when
      // it changes, and the in-use pass because it was clicked.
      this.inUse.add(creatorId);
      this.metrics.countEdgeCacheLookup('creator_profile', 'memory');
      return cached.profile;
    }
    // Counted as a database read even when it shares one already under way: the click waits for it.
    this.metrics.countEdgeCacheLookup('creator_profile', 'database');
    return this.loadOne(creatorId);
  }

  /** The timer's pass every second: reads the cached creators the change log names. */
  refreshChanged(): Promise<void> {
    return this.refresh(false);
  }

  /** The timer's pass once a minute: the changed creators and every creator clicked since. */
  refreshInUse(): Promise<void> {
    return this.refresh(true);
  }

  private async refresh(withInUse: boolean): Promise<void> {
    // A pass under way read the log (and the clicks) before now: wait, then read again.
    while (this.refreshing !== null) await this.refreshing;
    this.refreshing = this.pass(withInUse)
      .catch((error: unknown) => this.warnRefreshFailed(error))
      .finally(() => (this.refreshing = null));
    await this.refreshing;
  }

  /**
   * One pass. Nothing is kept from a pass that fails: the log is read again from the last
   * success (its rows are still there), and the in-use creators wait for the next pass.
   */
  private async pass(withInUse: boolean): Promise<void> {
    const inUse = withInUse ? [...this.inUse] : [];
    if (withInUse) this.inUse.clear();
    try {
      const log = await this.creators.readEdgeProfileChanges(
        this.changesReadAt,
        CHANGE_LOOK_BACK_MS,
      );
      const fresh = log.changes.filter((change) => !this.changesSeen.has(change.id));
      const ids = [...this.changedCreators(fresh, inUse)];
      for (let start = 0; start < ids.length; start += REFRESH_CHUNK) {
        const profiles = await this.read(ids.slice(start, start + REFRESH_CHUNK));
        for (const [creatorId, profile] of profiles) this.keep(creatorId, profile);
      }
      this.changesReadAt = log.readAt;
      const horizon = log.readAt.getTime() - CHANGE_LOOK_BACK_MS;
      for (const change of fresh) this.changesSeen.set(change.id, change.changedAt.getTime());
      for (const [id, changedAt] of this.changesSeen) {
        if (changedAt < horizon) this.changesSeen.delete(id);
      }
    } catch (error) {
      for (const creatorId of inUse) this.inUse.add(creatorId);
      throw error;
    }
    if (withInUse) this.lastInUsePassMs = this.clock.nowMs();
    if (this.clock.nowMs() - this.lastPruneMs >= PRUNE_INTERVAL_MS) {
      this.lastPruneMs = this.clock.nowMs();
      await this.creators.pruneEdgeProfileChanges(CHANGE_LOG_RETENTION_MS);
    }
  }

  /**
   * The creators a pass reads: the cached ones the log names (every cached one after a plan
   * change, a row without creator) and those clicked since the last in-use pass, if any.
   */
  private changedCreators(changes: EdgeProfileChange[], inUse: string[]): Set<string> {
    const ids = new Set(inUse);
    if (changes.some((change) => change.creatorId === null)) {
      for (const creatorId of this.cache.keys()) ids.add(creatorId);
    }
    for (const { creatorId } of changes) {
      if (creatorId === null || ids.has(creatorId)) continue;
      if (this.cache.has(creatorId)) ids.add(creatorId);
      // Not cached: a first read under way may predate the change, so it answers its
      // clicks but is not kept.
      else this.loading.forget(creatorId);
    }
    return ids;
  }

  /**
   * A creator never seen, read on its click; concurrent clicks share the read. With
   * PostgreSQL down it fails, and the click answers 503 (RedirectFronts).
   */
  private loadOne(creatorId: string): Promise<CreatorEdgeProfile | null> {
    return this.loading.run(creatorId, async (isCurrent) => {
      const profile = (await this.read([creatorId])).get(creatorId) ?? null;
      return isCurrent() ? this.keep(creatorId, profile) : profile;
    });
  }

  /** Reads the given creators' profiles, null for a creator that does not exist. */
  private async read(creatorIds: string[]): Promise<Map<string, CreatorEdgeProfile | null>> {
    const [limits, accounts] = await Promise.all([
      this.creators.readEdgeLimits(creatorIds),
      this.networkAccounts.readActiveAffiliateIds(creatorIds),
    ]);
    const found = new Map(
      limits.map((row) => [row.creatorId, this.toProfile(row, accounts.get(row.creatorId) ?? [])]),
    );
    return new Map(creatorIds.map((creatorId) => [creatorId, found.get(creatorId) ?? null]));
  }

  /** Caches a profile read; returns the one now cached. */
  private keep(creatorId: string, profile: CreatorEdgeProfile | null): CreatorEdgeProfile | null {
    const previous = this.cache.get(creatorId)?.profile ?? null;
    // An unchanged profile stays the same object: the click router's memos hold per
    // profile object (and its affiliate ids), so a new object at each read would throw
    // every link's memoised routes away.
    const kept = isSameProfile(previous, profile) ? previous : profile;
    this.cache.set(creatorId, { profile: kept });
    return kept;
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
  planId: true,
  edgeClicksPerMinute: true,
  includedClicks: true,
  isHardCap: true,
  routingMode: true,
  attribution: true,
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
