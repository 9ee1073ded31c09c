import { Injectable, Logger } from '@nestjs/common';
import { linkCapKeyOf } from '../clicks/edge-keys';
import type { RecordScope } from '../common/access/auth-context';
import { Clock } from '../common/clock';
import { KvStore } from '../kv/kv-store';
import { RoutingService } from '../routing/routing.service';
import type { UpdateLinkDto } from './dto/update-link.dto';
import { routeDestination } from './link-destination';
import type { LinkEntity } from './link.entity';
import { applyLinkLimits } from './link-limits';

/** A PATCH's expiry, cap and expired URL (docs/edge.md "Expiry and click caps"). */
@Injectable()
export class LinkLimitsService {
  private readonly logger = new Logger(LinkLimitsService.name);

  constructor(
    private readonly routing: RoutingService,
    private readonly store: KvStore,
    private readonly clock: Clock,
  ) {}

  /**
   * Applies the changes to the (not yet saved) link: a new expired URL is routed as the link
   * would be now, without its pin (it names the link's merchant's network). Answers whether
   * the link starts being capped (restartCount once saved).
   */
  async apply(scope: RecordScope, link: LinkEntity, changes: UpdateLinkDto): Promise<boolean> {
    const startsCapping = applyLinkLimits(link, changes, this.clock.nowMs(), false);
    if (changes.expiredUrl === null) link.expiredDestination = null;
    if (typeof changes.expiredUrl === 'string') {
      const context = await this.routing.prepare(scope.creatorId, scope.environment);
      link.expiredDestination = routeDestination(this.routing, context, changes.expiredUrl, {
        preset: link.preset,
        category: link.category,
        utmOverride: link.utmOverride,
        visitorCountry: link.visitorCountry,
        deviceType: link.deviceType,
      });
    }
    return startsCapping;
  }

  /**
   * A link capped again after a time without a cap: its counter (if Redis still has one)
   * missed the clicks counted meanwhile, so it is dropped and the next click rebuilds it from
   * PostgreSQL's count.
   */
  async restartCount(link: LinkEntity): Promise<void> {
    await this.store
      .deleteKeys([linkCapKeyOf(link.creatorId, link.id)])
      .catch((error: unknown) =>
        this.logger.warn(`Could not reset the click counter of link ${link.id}: ${String(error)}`),
      );
  }
}
