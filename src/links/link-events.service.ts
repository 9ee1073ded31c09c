import { Injectable, Logger } from '@nestjs/common';
import { ProbesService } from '../probes/probes.service';
import type { LinkEntity } from './link.entity';

type ChangeListener = (linkId: string) => Promise<void>;

/**
 * What follows a link's creation or change outside the request: background probes of new
 * links, and telling the edge caches (which depend on this module, not the other way round)
 * that a link changed. Never blocks the request and never throws.
 */
@Injectable()
export class LinkEventsService {
  private readonly logger = new Logger(LinkEventsService.name);
  private readonly changeListeners: ChangeListener[] = [];

  constructor(private readonly probes: ProbesService) {}

  /** The edge registers its cache eviction here. */
  onChanged(listener: ChangeListener): void {
    this.changeListeners.push(listener);
  }

  created(links: LinkEntity[]): void {
    // Probe what visitors are sent to: the original URL while passthrough is on.
    for (const link of links) {
      this.probes.enqueue({
        linkId: link.id,
        url: link.passthroughEnabled ? link.originalUrl : link.routedUrl,
      });
    }
  }

  /** Awaited by the caller so that the next request anywhere sees the change. */
  async changed(link: LinkEntity): Promise<void> {
    await Promise.all(
      this.changeListeners.map((listener) =>
        listener(link.id).catch((error: unknown) =>
          this.logger.warn(
            `Could not evict link ${link.id} from the edge caches: ${String(error)}`,
          ),
        ),
      ),
    );
  }
}
