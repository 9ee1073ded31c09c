import { Injectable } from '@nestjs/common';
import type { RecordScope } from '../common/access/auth-context';
import { KvStore } from '../kv/kv-store';
import type { DayPeriod } from './analytics-dates';
import { COUNT_UNIQUE_VISITORS_SCRIPT, daysOfPeriod, uniqueVisitorKeys } from './unique-visitors';

/** Reads the unique-visitor HyperLogLogs the click admission fills (unique-visitors.ts). */
@Injectable()
export class UniqueVisitorsService {
  constructor(private readonly store: KvStore) {}

  /**
   * Distinct visitors of the period's counted clicks, of one link or of the whole scope; a
   * visitor is one per day (the hash key rotates daily), so a period counts visitor-days.
   */
  count(scope: RecordScope, period: DayPeriod, linkId: string | null): Promise<number> {
    const keys = daysOfPeriod(period.periodStart, period.periodEnd).map((day) => {
      const sets = uniqueVisitorKeys(scope.creatorId, scope.environment, linkId ?? '', day);
      return linkId === null ? sets.creator : sets.link;
    });
    return this.store.runScript(COUNT_UNIQUE_VISITORS_SCRIPT, keys, []);
  }
}
