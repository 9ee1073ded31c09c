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
