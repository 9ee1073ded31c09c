import { Injectable, Logger } from '@nestjs/common';
import { KvStore } from '../kv/kv-store';
import type { LinkEntity } from './link.entity';
import { LINK_INVALIDATION_CHANNEL, linkRecordCacheKey } from './link-record-cache';

type ChangeListener = (linkId: string) => Promise<void>;

/** What a new link asks of whoever listens: probe the URL visitors are sent to. */
interface CreatedLink {
  linkId: string;
  /** The original URL while passthrough is on, else the routed URL. */
  servedUrl: string;
}
type CreatedListener = (links: CreatedLink[]) => void;

/**
 * What follows a link's creation or change outside the request, told to the modules that
 * depend on this one (never the other way round): the probes queue new links, the edge
 * caches evict changed ones (in this process through a listener, in Redis and on every other
 * node here, so a process without the edge, such as the admin CLI, evicts too). Never blocks
 * the request and never throws.
 */
@Injectable()
export class LinkEventsService {
  private readonly logger = new Logger(LinkEventsService.name);
  private readonly changeListeners: ChangeListener[] = [];
  private readonly createdListeners: CreatedListener[] = [];

  /**
   * Links changed while Redis was unreachable: their shared copy may still be in Redis when it
   * comes back (it had kept its data), where every node would read it for up to an hour.
   * Evicted again then. A set, bounded by the links edited during one outage.
   */
  private readonly unevicted = new Set<string>();

  constructor(private readonly store: KvStore) {
    store.onReachableAgain(() => void this.evictUnevicted());
  }

  /** The edge registers its cache eviction here. */
  onChanged(listener: ChangeListener): void {
    this.changeListeners.push(listener);
  }

  /** The probes register their queue here. A listener must not throw or block. */
  onCreated(listener: CreatedListener): void {
    this.createdListeners.push(listener);
  }

  created(links: LinkEntity[]): void {
    const created = links.map((link) => ({
      linkId: link.id,
      servedUrl: link.passthroughEnabled ? link.originalUrl : link.routedUrl,
    }));
    for (const listener of this.createdListeners) {
      try {
        listener(created);
      } catch (error) {
        this.logger.warn(`A listener of new links failed: ${String(error)}`);
      }
    }
  }

  /** Awaited by the caller so that the next request anywhere sees the change. */
  changed(link: LinkEntity): Promise<void> {
    return this.changedById(link.id);
  }

  async changedById(linkId: string): Promise<void> {
    const shared = this.evictShared(linkId).catch((error: unknown) => {
      this.unevicted.add(linkId);
      throw error;
    });
    const evictions = [...this.changeListeners.map((listener) => listener(linkId)), shared];
    await Promise.all(
      evictions.map((eviction) =>
        eviction.catch((error: unknown) =>
          this.logger.warn(`Could not evict link ${linkId} from the edge caches: ${String(error)}`),
        ),
      ),
    );
  }

  private async evictUnevicted(): Promise<void> {
    const linkIds = [...this.unevicted];
    this.unevicted.clear();
    for (const linkId of linkIds) {
      await this.evictShared(linkId).catch(() => this.unevicted.add(linkId));
    }
  }

  /** The Redis copy, then every node's in-process copy (they listen on the channel). */
  private async evictShared(linkId: string): Promise<void> {
    await this.store.deleteKeys([linkRecordCacheKey(linkId)]);
    await this.store.publish(LINK_INVALIDATION_CHANNEL, linkId);
  }
}
