import type { KeyEnvironment } from '../common/access/auth-context';
import { Injectable } from '@nestjs/common';
import { ClickRollupReadsRepository, type RouteClicks } from './click-rollup-reads.repository';

export type { RouteClicks };

/** Counts of stored clicks that other modules need (quota rebuilds, account usage). */
@Injectable()
export class ClickCountsService {
  constructor(private readonly rollups: ClickRollupReadsRepository) {}

  /**
   * Clicks of a creator stored since the start of a billing period (a UTC day): what a quota
   * counter is rebuilt from when Redis has none (first click of the period, or data lost),
   * never zero. From the route days, so its cost does not grow with the month's clicks; on
   * the serving pool, as the quota it seeds is on the request path.
   */
  countSince(creatorId: string, environment: KeyEnvironment, periodStart: string): Promise<number> {
    return this.rollups.countSince(creatorId, environment, periodStart);
  }

  /**
   * A creator's counted clicks per route (merchant, network, region) from a UTC day on, for
   * learned routing; on the serving pool, read off the click path and cached by the caller.
   */
  countPerRouteSince(
    creatorId: string,
    environment: KeyEnvironment,
    fromDay: string,
  ): Promise<RouteClicks[]> {
    return this.rollups.countPerRouteSince(creatorId, environment, fromDay);
  }
}
