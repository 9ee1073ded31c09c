import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Clock } from '../common/clock';
import { normaliseLinkId } from '../common/ids';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { KvStore } from '../kv/kv-store';
import { LinkEventsService } from '../links/link-events.service';
import { LinkRoutingRecord } from '../links/link-routing-record';
import { LINK_INVALIDATION_CHANNEL, linkRecordCacheKey } from '../links/link-record-cache';
import { LinksService } from '../links/links.service';
import { AppMetrics } from '../metrics/app-metrics';

const REDIS_TTL_SECONDS = 3600;
/**
 * The in-process copy is read again (in the background) once it is a minute old; changes
 * also evict it at once (pub/sub), so this only bounds an eviction that went missing.
 */
const LOCAL_FRESH_MS = 60_000;
/** Unknown or deleted ids are read again sooner (and a flood of them stays off PostgreSQL). */
const MISSING_FRESH_MS = 5_000;
/** A background read under way, or failed (PostgreSQL down), is tried again after this. */
const REFRESH_RETRY_MS = 5_000;
/** While PostgreSQL is down, failed background reads are logged at most this often. */
const REFRESH_WARNING_INTERVAL_MS = 10_000;

/** The in-process copy of a link's record (null: no such link) and when to read it again. */
interface LocalRecord {
  record: LinkRoutingRecord | null;
  refreshAtMs: number;
}

/**
 * A link's routing record for the edge: in-process LRU, else Redis, else PostgreSQL (then
 * cached in both). Updates and deletes evict it everywhere: here at once (a link event),
 * and in Redis and on every node through LinkEventsService (link-record-cache.ts).
 *
 * A record in process is served however old it is, so no click waits for PostgreSQL on a
 * link this node has seen (PostgreSQL down or stalled included): past its time the click is
 * answered from the copy and the record is read again in the background.
 */
@Injectable()
export class LinkRecordsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(LinkRecordsService.name);
  private readonly refreshWarnings: ThrottledLogger;
  private readonly local = new LRUCache<string, LocalRecord>({ max: 200_000 });
  /** Background reads under way, awaited on shutdown. */
  private readonly refreshes = new Set<Promise<void>>();

  constructor(
    private readonly store: KvStore,
    private readonly links: LinksService,
    private readonly metrics: AppMetrics,
    private readonly clock: Clock,
    linkEvents: LinkEventsService,
  ) {
    this.refreshWarnings = new ThrottledLogger(
      LinkRecordsService.name,
      REFRESH_WARNING_INTERVAL_MS,
      clock,
    );
    // Edits, deletions and probe results all change what a click should do.
    linkEvents.onChanged((linkId) => {
      this.local.delete(linkId);
      return Promise.resolve();
    });
  }

  async onModuleInit(): Promise<void> {
    await this.store
      .subscribe(LINK_INVALIDATION_CHANNEL, (linkId) => this.local.delete(linkId))
      .catch((error: unknown) =>
        this.logger.warn(`No cross-node cache invalidation (Redis unreachable): ${String(error)}`),
      );
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.refreshes);
  }

  /**
   * The record, or null for an unknown or deleted link. A value, not a promise, when the
   * record is in process, so the redirect's common path does not wait a microtask for it.
   */
  find(typedLinkId: string): LinkRoutingRecord | null | Promise<LinkRoutingRecord | null> {
    // One spelling per link before any cache: a string that cannot be an id costs nothing.
    const linkId = normaliseLinkId(typedLinkId);
    if (linkId === null) return null;
    const cached = this.local.get(linkId);
    if (cached !== undefined) {
      this.metrics.countEdgeCacheLookup('link_record', 'memory');
      if (this.clock.nowMs() >= cached.refreshAtMs) this.refreshInBackground(linkId, cached);
      return cached.record;
    }
    return this.load(linkId);
  }

  /** A link not in process, read on its click (which waits, and fails with PostgreSQL down). */
  private async load(linkId: string): Promise<LinkRoutingRecord | null> {
    const { record, source } = await this.read(linkId);
    this.metrics.countEdgeCacheLookup('link_record', source);
    return record;
  }

  /**
   * Reads a copy past its time again without a click waiting for it. The copy's own time is
   * moved on first, so the clicks meanwhile start no second read, and a failed read (logged,
   * the copy kept) is tried again REFRESH_RETRY_MS later.
   */
  private refreshInBackground(linkId: string, stale: LocalRecord): void {
    stale.refreshAtMs = this.clock.nowMs() + REFRESH_RETRY_MS;
    const refresh: Promise<void> = this.read(linkId)
      .then(
        () => undefined,
        (error: unknown) => {
          this.refreshWarnings.warn(
            'refresh',
            'Link records not read again, serving the cached ones',
            error,
          );
        },
      )
      .finally(() => this.refreshes.delete(refresh));
    this.refreshes.add(refresh);
  }

  /** Redis, else PostgreSQL (then cached in Redis); kept in process either way. */
  private async read(
    linkId: string,
  ): Promise<{ record: LinkRoutingRecord | null; source: 'redis' | 'database' }> {
    const fromRedis = await this.fromRedis(linkId);
    const record = fromRedis ?? (await this.fromDatabase(linkId));
    const freshForMs = record === null ? MISSING_FRESH_MS : LOCAL_FRESH_MS;
    this.local.set(linkId, { record, refreshAtMs: this.clock.nowMs() + freshForMs });
    return { record, source: fromRedis === null ? 'database' : 'redis' };
  }

  private async fromRedis(linkId: string): Promise<LinkRoutingRecord | null> {
    const raw = await this.store.getString(linkRecordCacheKey(linkId)).catch(() => null);
    return raw === null ? null : (JSON.parse(raw) as LinkRoutingRecord);
  }

  private async fromDatabase(linkId: string): Promise<LinkRoutingRecord | null> {
    const record = await this.links.findRoutingRecord(linkId);
    if (record === null) return null;
    await this.store
      .setString(linkRecordCacheKey(linkId), JSON.stringify(record), REDIS_TTL_SECONDS)
      .catch(() => undefined);
    return record;
  }
}
