import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { SingleFlight } from '../common/cache/single-flight';
import { KvStore } from '../kv/kv-store';
import {
  DOMAIN_INVALIDATION_CHANNEL,
  DomainEvictionsService,
  slugCacheKey,
  slugKeyOfMessage,
} from './domain-evictions.service';
import type { VerifiedHost } from './verified-host';
import { DomainsService } from './domains.service';

/**
 * The verified hostnames are read again this often, besides on every change (pub/sub): this
 * bounds an eviction that went missing.
 */
const HOSTS_REFRESH_MS = 60_000;
/** A slug's link id is kept in process this long, a slug without a link shorter. */
const SLUG_FRESH_MS = 60_000;
const MISSING_SLUG_FRESH_MS = 5_000;
const SLUG_CACHE_ENTRIES = 100_000;
const REDIS_TTL_SECONDS = 3600;

/** An absent slug is cached as this, as LRUCache keeps no null. */
const NO_LINK = '';

/**
 * What the edge needs to serve branded domains: whether a `Host` is a verified domain, and
 * which link a slug on it names.
 *
 * The verified hostnames are all kept in process and read again on change: a `Host` is the
 * visitor's to choose, so no made-up one may cost a database read. A slug's link id is cached
 * like a link's record (redirect/link-records.service.ts): in process, else Redis, else
 * PostgreSQL, and evicted everywhere when a link's slug or domain changes
 * (domain-evictions.service.ts).
 */
@Injectable()
export class BrandedTargetsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(BrandedTargetsService.name);
  private hosts = new Map<string, VerifiedHost>();
  private hostsRead: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private readonly slugs = new LRUCache<string, string>({ max: SLUG_CACHE_ENTRIES });
  private readonly reads = new SingleFlight<string, string | null>();

  constructor(
    private readonly domains: DomainsService,
    private readonly store: KvStore,
    evictions: DomainEvictionsService,
  ) {
    evictions.onEvicted((message) => this.evict(message));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.store
      .subscribe(DOMAIN_INVALIDATION_CHANNEL, (message) => void this.evict(message))
      .catch((error: unknown) =>
        this.logger.warn(`No cross-node domain eviction (Redis unreachable): ${String(error)}`),
      );
    await this.readHosts();
    this.timer = setInterval(() => void this.readHosts(), HOSTS_REFRESH_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    await this.hostsRead;
  }

  /** The verified domain of this `Host` (lowercase, no port), if it is one. */
  domainOf(host: string): VerifiedHost | undefined {
    return this.hosts.get(host);
  }

  /** The live link of `slug` on the domain, or null; a value when it is in process. */
  linkIdOf(domain: VerifiedHost, slug: string): string | null | Promise<string | null> {
    const key = `${domain.id}:${slug}`;
    const cached = this.slugs.get(key);
    if (cached !== undefined) return cached === NO_LINK ? null : cached;
    return this.reads.run(key, async (isCurrent) => {
      const linkId = await this.readThrough(domain.id, slug);
      if (isCurrent()) {
        this.slugs.set(key, linkId ?? NO_LINK, {
          ttl: linkId === null ? MISSING_SLUG_FRESH_MS : SLUG_FRESH_MS,
        });
      }
      return linkId;
    });
  }

  private async readThrough(domainId: string, slug: string): Promise<string | null> {
    const redisKey = slugCacheKey(domainId, slug);
    const fromRedis = await this.store.getString(redisKey).catch(() => null);
    if (fromRedis !== null) return fromRedis;
    const linkId = await this.domains.findLinkIdBySlug(domainId, slug);
    if (linkId !== null) {
      // No click waits for the copy; one that fails to land costs a later miss a read.
      void this.store.setString(redisKey, linkId, REDIS_TTL_SECONDS).catch(() => undefined);
    }
    return linkId;
  }

  /** A slug is dropped at once; the hostnames are read again (awaited by local changes). */
  private evict(message: string): Promise<void> {
    const slugKey = slugKeyOfMessage(message);
    if (slugKey === null) return this.readHosts();
    this.slugs.delete(slugKey);
    this.reads.forget(slugKey);
    return Promise.resolve();
  }

  /**
   * Reads run one after another, each after the change that asked for it: a read under way
   * may have missed the change. A failed one keeps the hostnames known (logged).
   */
  private readHosts(): Promise<void> {
    this.hostsRead = this.hostsRead.then(() =>
      this.domains.findAllVerified().then(
        (rows) => {
          this.hosts = new Map(rows.map((row) => [row.hostname, row]));
        },
        (error: unknown) =>
          this.logger.warn(`Verified domains not read, keeping the known ones: ${String(error)}`),
      ),
    );
    return this.hostsRead;
  }
}
