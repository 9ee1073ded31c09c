import { Injectable } from '@nestjs/common';
import { ClickCountsService } from '../analytics/click-counts.service';
import type { KeyEnvironment } from '../common/access/auth-context';

/** A creator's trailing figures on one route (merchant, network, region). */
export interface RealisedEpcRoute {
  merchantId: string;
  networkId: string;
  region: string | null;
  /** Counted clicks sent to the route. */
  clicks: number;
  /** Commission in USD on those clicks: approved plus pending, net of reversals. */
  commissionUsd: number;
}

/**
 * Where learned routing reads a creator's realised EPC: counted clicks and attributed
 * commission per route from `sinceDay` (inclusive, UTC) on, for the given merchants. The
 * analytics module's earnings reads answer it once conversions are recorded.
 */
export interface RealisedEpcSource {
  realisedEpcByRoute(
    creatorId: string,
    environment: KeyEnvironment,
    merchantIds: readonly string[],
    sinceDay: string,
  ): Promise<RealisedEpcRoute[]>;
}

/** The injection token of the RealisedEpcSource. */
export const REALISED_EPC_SOURCE = 'RealisedEpcSource';

/**
 * The source while no conversion is recorded anywhere: the counted clicks per route from the
 * click rollups, each with the commission no conversion has brought yet (0).
 */
@Injectable()
export class ClickRollupRealisedEpc implements RealisedEpcSource {
  constructor(private readonly clickCounts: ClickCountsService) {}

  async realisedEpcByRoute(
    creatorId: string,
    environment: KeyEnvironment,
    merchantIds: readonly string[],
    sinceDay: string,
  ): Promise<RealisedEpcRoute[]> {
    const merchants = new Set(merchantIds);
    const routes = await this.clickCounts.countPerRouteSince(creatorId, environment, sinceDay);
    return routes
      .filter((route) => merchants.has(route.merchantId))
      .map((route) => ({ ...route, commissionUsd: 0 }));
  }
}
