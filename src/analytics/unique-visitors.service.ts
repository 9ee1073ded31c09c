import { Injectable } from '@nestjs/common';
import type { RecordScope } from '../common/access/auth-context';
import { retryWhile, type RetryWindow } from '../common/async/retry-while';
import { Clock } from '../common/clock';
import { isKvUnavailable } from '../common/errors/kv-unavailable';
import { KvStore } from '../kv/kv-store';
import type { DayPeriod } from './analytics-dates';
import type { DayRange, QuerySource } from './click-rollup-reads.repository';
import {
  countOf,
  countSerialized,
  emptyRegisters,
  mergeSerialized,
  parseSerialized,
} from './hyperloglog';
import { daysOfPeriod, daysStillInStore, sketchKeyOf } from './unique-visitors';
import { VisitorSketchesRepository } from './visitor-sketches.repository';

/**
 * How long a read of the recent sketches keeps asking a key-value store that has no
 * connection: a Redis Cluster failing over answers again within a second or so, and an
 * analytics read may wait that long rather than answer 503. A store down for longer still
 * answers 503 KV_ERROR with Retry-After, after about two seconds at most.
 */
const STORE_RETRY: RetryWindow = { withinMs: 1_500, firstPauseMs: 100 };

/**
 * Reads the unique-visitor sketches (unique-visitors.ts): PostgreSQL's, for the days moved
 * there, merged by register maximum with the key-value store's, for the days whose keys may
 * still be there (the last UNIQUE_VISITORS_TTL_DAYS and today), and counted with Redis's own
 * estimator (hyperloglog.ts). A day in both places (a move under way, a late replay) merges
 * into itself: the answer is the same wherever a day's registers are.
 */
@Injectable()
export class UniqueVisitorsService {
  constructor(
    private readonly store: KvStore,
    private readonly sketches: VisitorSketchesRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Distinct visitors of the period's counted clicks, of one link or of the whole scope
   * (`linkId` null); a visitor is one per day (the hash key rotates daily), so a period
   * counts visitor-days. `source`: the caller's analytics slot.
   */
  async count(
    source: QuerySource,
    scope: RecordScope,
    period: DayPeriod,
    linkId: string | null,
  ): Promise<number> {
    const days = { from: period.periodStart, to: period.periodEnd };
    const [stored, inStore] = await Promise.all([
      this.sketches.registersOf(source, scope, linkId, days),
      this.valuesInStore(scope, linkId, days),
    ]);
    const registers = emptyRegisters();
    for (const value of stored) mergeSerialized(registers, value);
    for (const value of inStore.values()) mergeSerialized(registers, value);
    return countOf(registers);
  }

  /**
   * Each day's distinct visitors, by day (`YYYY-MM-DD`; days without any are absent). A day
   * only in PostgreSQL costs its stored count, never its sketch; only the days still in the
   * key-value store (at most UNIQUE_VISITORS_TTL_DAYS + 1) are merged and counted here.
   */
  async perDay(
    source: QuerySource,
    scope: RecordScope,
    days: Required<DayRange>,
    linkId: string | null,
  ): Promise<Map<string, number>> {
    const [stored, inStore] = await Promise.all([
      this.sketches.dailyOf(source, scope, linkId, days, daysStillInStore(this.clock.nowMs()).from),
      this.valuesInStore(scope, linkId, days),
    ]);
    const counts = new Map<string, number>();
    const storedRegisters = new Map<string, Buffer>();
    for (const { day, visitors, registers } of stored) {
      counts.set(day, visitors);
      if (registers !== null) storedRegisters.set(day, registers);
    }
    for (const [day, value] of inStore) {
      const moved = storedRegisters.get(day);
      if (moved === undefined) {
        counts.set(day, countSerialized(value));
        continue;
      }
      const registers = parseSerialized(value);
      mergeSerialized(registers, moved);
      counts.set(day, countOf(registers));
    }
    return counts;
  }

  /** The range's sketches still in the key-value store, by day: one MGET (one hash slot). */
  private async valuesInStore(
    scope: RecordScope,
    linkId: string | null,
    days: Required<DayRange>,
  ): Promise<Map<string, Buffer>> {
    const recent = daysStillInStore(this.clock.nowMs());
    const from = days.from > recent.from ? days.from : recent.from;
    const to = days.to < recent.to ? days.to : recent.to;
    if (from > to) return new Map();
    const inStoreDays = daysOfPeriod(from, to);
    const keys = inStoreDays.map((day) =>
      sketchKeyOf(scope.creatorId, scope.environment, linkId, day),
    );
    const values = await retryWhile(() => this.store.getBytes(keys), isKvUnavailable, STORE_RETRY);
    const found = new Map<string, Buffer>();
    values.forEach((value, i) => {
      if (value !== null) found.set(inStoreDays[i], value);
    });
    return found;
  }
}
