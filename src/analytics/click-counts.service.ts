import type { KeyEnvironment } from '../common/access/auth-context';
import { Injectable } from '@nestjs/common';
import { ClickRollupReadsRepository } from './click-rollup-reads.repository';

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
   * All the clicks of one link stored so far: what a capped link's counter is rebuilt from
   * (docs/edge.md "Expiry and click caps"); on the serving pool, like countSince.
   */
  countOfLink(creatorId: string, environment: KeyEnvironment, linkId: string): Promise<number> {
    return this.rollups.countOfLink(creatorId, environment, linkId);
  }
}
