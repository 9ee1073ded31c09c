import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { createTurnBatcher } from '../common/async/turn-batcher';
import { SingleFlight } from '../common/cache/single-flight';
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

/**
 * The in-process copies' memory budget, as estimated by footprintOf: about 28,000 links of the
 * million-link bench profile's shape (bench/large-profile.js), where a count of 200,000 could
 * have grown to about 1 GiB; the default profile's 1,000 links use a few MiB of it.
 */
const LOCAL_BUDGET_BYTES = 128 * 1024 * 1024;
/**
 * What a cached link costs the process besides its URLs: its record and the state the
 * redirect keeps for as long as the record is cached (per record, in WeakMaps: the routing
 * engine's input, the routes by visitor, the click record templates): 3 to 5 KiB a link in
 * heap snapshots of the large profile.
 */
const LINK_FIXED_BYTES = 4096;
/** Each URL character is held about three times: in the record, its routes, its click templates. */
const BYTES_PER_URL_CHARACTER = 3;
/** An unknown id's entry: the key and an entry with no record. */
const MISSING_LINK_BYTES = 256;

const footprintOf = ({ record }: LocalRecord): number =>
  record === null
    ? MISSING_LINK_BYTES
    : LINK_FIXED_BYTES +
      BYTES_PER_URL_CHARACTER * (record.originalUrl.length + record.stored.routedUrl.length);

/** The in-process copy of a link's record (null: no such link) and when to read it again. */
interface LocalRecord {
  record: LinkRoutingRecord | null;
  refreshAtMs: number;
}

/** A link's record as read from Redis or PostgreSQL, and which answered. */
interface RecordRead {
  record: LinkRoutingRecord | null;
  source: 'redis' | 'database';
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
  /** Bounded by memory, not by count: a link's footprint grows with its URLs. */
  private readonly local = new LRUCache<string, LocalRecord>({
    maxSize: LOCAL_BUDGET_BYTES,
    sizeCalculation: footprintOf,
  });
  /**
   * Reads under way by link: the clicks that miss a link while it is being read wait for that
   * read (one Redis and PostgreSQL read for a burst of clicks on an uncached link).
   */
  private readonly reads = new SingleFlight<string, RecordRead>();
  /**
   * PostgreSQL reads of the links missed in one event-loop turn, as one statement: under a
   * long tail of links (the million-link bench) a third of clicks miss, and a statement per
   * miss cost PostgreSQL more than the rest of the click.
   */
  private readonly databaseReads = createTurnBatcher<string, LinkRoutingRecord | null>(
    async (linkIds) => {
      const found = await this.links.findRoutingRecords(linkIds);
      return linkIds.map((linkId) => found.get(linkId) ?? null);
    },
    500,
  );
  /** Background reads and Redis copies under way, awaited on shutdown. */
  private readonly inBackground = new Set<Promise<void>>();

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
      this.forget(linkId);
      return Promise.resolve();
    });
  }

  async onModuleInit(): Promise<void> {
    await this.store
      .subscribe(LINK_INVALIDATION_CHANNEL, (linkId) => this.forget(linkId))
      .catch((error: unknown) =>
        this.logger.warn(`No cross-node cache invalidation (Redis unreachable): ${String(error)}`),
      );
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.inBackground);
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
    this.runInBackground(
      this.read(linkId).then(
        () => undefined,
        (error: unknown) => {
          this.refreshWarnings.warn(
            'refresh',
            'Link records not read again, serving the cached ones',
            error,
          );
        },
      ),
    );
  }

  /** Work no click waits for, awaited on shutdown; `work` handles its own failure. */
  private runInBackground(work: Promise<void>): void {
    const tracked = work.finally(() => this.inBackground.delete(tracked));
    this.inBackground.add(tracked);
  }

  /**
   * A changed link's copy is dropped, and so is a read of it under way: that read still answers
   * the clicks waiting for it, but is not kept, and the next click reads the link afresh.
   */
  private forget(linkId: string): void {
    this.local.delete(linkId);
    this.reads.forget(linkId);
  }

  /**
   * Redis, else PostgreSQL (then cached in Redis); kept in process either way, unless the link
   * changed meanwhile (`forget`). One read per link at a time: a second caller gets the first's.
   */
  private read(linkId: string): Promise<RecordRead> {
    return this.reads.run(linkId, async (isCurrent) => {
      const result = await this.readThrough(linkId);
      if (isCurrent()) {
        const freshForMs = result.record === null ? MISSING_FRESH_MS : LOCAL_FRESH_MS;
        this.local.set(linkId, {
          record: result.record,
          refreshAtMs: this.clock.nowMs() + freshForMs,
        });
      }
      return result;
    });
  }

  private async readThrough(linkId: string): Promise<RecordRead> {
    const fromRedis = await this.fromRedis(linkId);
    if (fromRedis !== null) return { record: fromRedis, source: 'redis' };
    return { record: await this.fromDatabase(linkId), source: 'database' };
  }

  private async fromRedis(linkId: string): Promise<LinkRoutingRecord | null> {
    const raw = await this.store.getString(linkRecordCacheKey(linkId)).catch(() => null);
    return raw === null ? null : (JSON.parse(raw) as LinkRoutingRecord);
  }

  private async fromDatabase(linkId: string): Promise<LinkRoutingRecord | null> {
    const record = await this.databaseReads.load(linkId);
    if (record !== null) this.keepInRedis(linkId, record);
    return record;
  }

  /**
   * Copies a record read from PostgreSQL to Redis for the other nodes (and this one after an
   * eviction), without the click waiting for it: the click has its record, and a copy that
   * fails to land costs a later miss one more PostgreSQL read, nothing else. Awaited on shutdown.
   */
  private keepInRedis(linkId: string, record: LinkRoutingRecord): void {
    this.runInBackground(
      this.store
        .setString(linkRecordCacheKey(linkId), JSON.stringify(record), REDIS_TTL_SECONDS)
        .catch(() => undefined),
    );
  }
}
