import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { normaliseLinkId } from '../common/ids';
import { KvStore } from '../kv/kv-store';
import { LinkEventsService } from '../links/link-events.service';
import { LinkRoutingRecord } from '../links/link-routing-record';
import { LINK_INVALIDATION_CHANNEL, linkRecordCacheKey } from '../links/link-record-cache';
import { LinksService } from '../links/links.service';
import { AppMetrics } from '../metrics/app-metrics';

const REDIS_TTL_SECONDS = 3600;
/** The in-process copy lives a minute at most; changes also evict it at once (pub/sub). */
const LOCAL_TTL_MS = 60_000;
/** Unknown or deleted ids are remembered briefly so a flood of them stays off PostgreSQL. */
const MISSING_TTL_MS = 5_000;

type Cached = LinkRoutingRecord | 'missing';

/**
 * A link's routing record for the edge: in-process LRU, else Redis, else PostgreSQL (then
 * cached in both). Updates and deletes evict it everywhere: here at once (a link event),
 * and in Redis and on every node through LinkEventsService (link-record-cache.ts).
 */
@Injectable()
export class LinkRecordsService implements OnModuleInit {
  private readonly logger = new Logger(LinkRecordsService.name);
  private readonly local = new LRUCache<string, Cached>({ max: 200_000, ttl: LOCAL_TTL_MS });

  constructor(
    private readonly store: KvStore,
    private readonly links: LinksService,
    private readonly metrics: AppMetrics,
    linkEvents: LinkEventsService,
  ) {
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
      return cached === 'missing' ? null : cached;
    }
    return this.load(linkId);
  }

  private async load(linkId: string): Promise<LinkRoutingRecord | null> {
    const record = (await this.fromRedis(linkId)) ?? (await this.fromDatabase(linkId));
    if (record === null) this.local.set(linkId, 'missing', { ttl: MISSING_TTL_MS });
    else this.local.set(linkId, record);
    return record;
  }

  private async fromRedis(linkId: string): Promise<LinkRoutingRecord | null> {
    const raw = await this.store.getString(linkRecordCacheKey(linkId)).catch(() => null);
    if (raw === null) return null;
    this.metrics.countEdgeCacheLookup('link_record', 'redis');
    return JSON.parse(raw) as LinkRoutingRecord;
  }

  private async fromDatabase(linkId: string): Promise<LinkRoutingRecord | null> {
    const record = await this.links.findRoutingRecord(linkId);
    this.metrics.countEdgeCacheLookup('link_record', 'database');
    if (record === null) return null;
    await this.store
      .setString(linkRecordCacheKey(linkId), JSON.stringify(record), REDIS_TTL_SECONDS)
      .catch(() => undefined);
    return record;
  }
}
