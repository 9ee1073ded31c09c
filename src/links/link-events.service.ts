import { Injectable } from '@nestjs/common';
import type { LinkEntity } from './link.entity';

/**
 * What must follow a link's creation or change outside the request: background probes now,
 * redirect cache invalidation when the edge redirector lands. Never blocks or throws.
 */
@Injectable()
export class LinkEventsService {
  created(links: LinkEntity[]): void {
    void links;
  }

  changed(link: LinkEntity): void {
    void link;
  }
}
