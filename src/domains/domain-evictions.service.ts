import { Injectable, Logger } from '@nestjs/common';
import { KvStore } from '../kv/kv-store';

/**
 * The edge's caches of branded domains (branded-targets.service.ts), shared by every process
 * that changes domains or slugs: the API and the admin CLI evict the same way. On the channel,
 * `hosts` makes every node read the verified hostnames again; `s:<domainId>:<slug>` drops one
 * slug's resolution.
 */
export const DOMAIN_INVALIDATION_CHANNEL = 'linkpilot:domains:invalidate';
const HOSTS_CHANGED_MESSAGE = 'hosts';
const SLUG_MESSAGE_PREFIX = 's:';

/** The Redis key of a slug's link id. */
export const slugCacheKey = (domainId: string, slug: string): string =>
  `slugrec:v1:${domainId}:${slug}`;

const slugMessageOf = (domainId: string, slug: string): string =>
  `${SLUG_MESSAGE_PREFIX}${domainId}:${slug}`;

/** The slug cache key a channel message names, or null for `hosts`. */
export const slugKeyOfMessage = (message: string): string | null =>
  message.startsWith(SLUG_MESSAGE_PREFIX) ? message.slice(SLUG_MESSAGE_PREFIX.length) : null;

/** A slug on a domain, as links hold them. */
export interface DomainSlug {
  domainId: string;
  slug: string;
}

/**
 * Evicts after a change: awaited by the request that made it, so the next click anywhere
 * sees it; never throws (an eviction that fails is logged, and the caches' own times bound it).
 */
@Injectable()
export class DomainEvictionsService {
  private readonly logger = new Logger(DomainEvictionsService.name);
  private readonly localListeners: ((message: string) => Promise<void>)[] = [];

  constructor(private readonly store: KvStore) {}

  /** This process's edge evicts here at once, before the channel's message comes round. */
  onEvicted(listener: (message: string) => Promise<void>): void {
    this.localListeners.push(listener);
  }

  async hostsChanged(): Promise<void> {
    await this.tellLocal([HOSTS_CHANGED_MESSAGE]);
    await this.store
      .publish(DOMAIN_INVALIDATION_CHANNEL, HOSTS_CHANGED_MESSAGE)
      .catch((error: unknown) =>
        this.logger.warn(`Could not tell the edge of a domain change: ${String(error)}`),
      );
  }

  async slugsChanged(slugs: readonly DomainSlug[]): Promise<void> {
    if (slugs.length === 0) return;
    await this.tellLocal(slugs.map(({ domainId, slug }) => slugMessageOf(domainId, slug)));
    try {
      await this.store.deleteKeys(slugs.map(({ domainId, slug }) => slugCacheKey(domainId, slug)));
      await Promise.all(
        slugs.map(({ domainId, slug }) =>
          this.store.publish(DOMAIN_INVALIDATION_CHANNEL, slugMessageOf(domainId, slug)),
        ),
      );
    } catch (error) {
      this.logger.warn(`Could not evict slugs from the edge caches: ${String(error)}`);
    }
  }

  private async tellLocal(messages: string[]): Promise<void> {
    await Promise.all(
      this.localListeners.flatMap((listener) => messages.map((message) => listener(message))),
    );
  }
}
