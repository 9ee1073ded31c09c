import { Injectable } from '@nestjs/common';
import { startOfDay, startOfNextDay, utcDateOf } from './analytics-dates';
import {
  ClickRollupsRepository,
  ROLLUP_NAMES,
  RollupBatchResult,
} from './click-rollups.repository';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Creators per statement when deleting old rollups (one index probe each). */
const CREATORS_PER_DELETION = 500;
/** Rollup rows per deleting statement: a short transaction, whatever the backlog. */
const ROWS_PER_DELETION = 5_000;

/** What to rebuild: one creator or all, whole UTC days, both ends inclusive and optional. */
export interface RollupRebuildRequest {
  creatorId?: string;
  from?: string;
  to?: string;
}

/** A creator-day done. */
export interface RollupRebuildProgress {
  creatorId: string;
  /** 1-based position of the creator among those rebuilt, and how many there are. */
  creator: number;
  creators: number;
  day: string;
  /** 1-based position of the day among the creator's, and how many there are. */
  dayNumber: number;
  days: number;
  /** Transactions the day took: one per hour with clicks, one for the creator rollups. */
  batches: number;
  rows: number;
  differingRows: number;
}

export interface RollupRebuildSummary {
  creators: number;
  days: number;
  batches: number;
  /** Rollup rows of the rebuilt days. */
  rows: number;
  /** Rows that were missing, extra or wrong, now corrected. */
  differingRows: number;
  /** Creator-days whose rollups differed and were rewritten. */
  repairedDays: number;
}

/**
 * `linkpilot analytics rebuild`: recomputes the click rollups from the clicks, for restored
 * backups, imported history and repairs, a creator-day at a time: the link rollup an hour per
 * transaction from the clicks (a busy creator's day is hundreds of thousands of them, and a
 * batch holds writers back while it runs), then the creator rollups of the day from the link
 * rollup in one more. Safe while clicks are written (each batch locks the rollups it rewrites
 * first) and idempotent: a batch already right is left alone. A creator's days before its
 * oldest stored click are never touched: when raw clicks are dropped after their retention,
 * their rollups are all that is left of them.
 */
@Injectable()
export class ClickRollupsService {
  constructor(private readonly rollups: ClickRollupsRepository) {}

  async rebuild(
    request: RollupRebuildRequest,
    onProgress: (progress: RollupRebuildProgress) => void = () => undefined,
  ): Promise<RollupRebuildSummary> {
    const creatorIds =
      request.creatorId === undefined
        ? await this.rollups.findCreatorsWithClicks()
        : [request.creatorId];
    const summary: RollupRebuildSummary = {
      creators: creatorIds.length,
      days: 0,
      batches: 0,
      rows: 0,
      differingRows: 0,
      repairedDays: 0,
    };
    for (const [index, creatorId] of creatorIds.entries()) {
      const days = await this.daysToRebuild(creatorId, request);
      for (const [dayIndex, day] of days.entries()) {
        const done = await this.rebuildDay(creatorId, day);
        summary.days++;
        summary.batches += done.batches;
        summary.rows += done.rows;
        summary.differingRows += done.differingRows;
        if (done.differingRows > 0) summary.repairedDays++;
        onProgress({
          creatorId,
          creator: index + 1,
          creators: creatorIds.length,
          day: utcDateOf(day),
          dayNumber: dayIndex + 1,
          days: days.length,
          ...done,
        });
      }
    }
    return summary;
  }

  /** The link rollup hour by hour, then the creator rollups from it. */
  private async rebuildDay(
    creatorId: string,
    day: Date,
  ): Promise<{ batches: number; rows: number; differingRows: number }> {
    const dayEnd = new Date(day.getTime() + DAY_MS);
    const hours = await this.rollups.findHoursWithRows(creatorId, day, dayEnd);
    const done = { batches: 0, rows: 0, differingRows: 0 };
    const add = (result: RollupBatchResult) => {
      done.batches++;
      done.rows += result.rows;
      done.differingRows += result.differingRows;
    };
    for (const hour of hours) {
      add(
        await this.rollups.rebuildLinkRollup(creatorId, hour, new Date(hour.getTime() + HOUR_MS)),
      );
    }
    add(await this.rollups.rebuildCreatorRollups(creatorId, day, dayEnd));
    return done;
  }

  /**
   * The days of `[from, to)` (whole UTC days; from null: the oldest click) that the rebuild
   * would visit and on which some rollup of the creator does not add up to its clicks (the
   * day's clicks and sums per environment), as `YYYY-MM-DD`. A check one statement a day,
   * without the rebuild's locks: what the raw-click retention asks before dropping a month.
   */
  async findDifferingDays(creatorId: string, from: Date | null, to: Date): Promise<string[]> {
    const differing: string[] = [];
    for (const day of await this.daysFromFirstClick(creatorId, from, to)) {
      const dayEnd = new Date(day.getTime() + DAY_MS);
      if ((await this.rollups.countDifferingDayTotals(creatorId, day, dayEnd)) > 0) {
        differing.push(utcDateOf(day));
      }
    }
    return differing;
  }

  /**
   * Deletes the rollup rows older than `before` (a month start), every creator's, a bounded
   * batch per statement; with `dryRun`, only counts them. The rollups have no triggers, so
   * nothing else changes. Answers the rows.
   */
  async deleteBefore(before: Date, { dryRun }: { dryRun: boolean }): Promise<number> {
    // Old clicks still in the link rollup's deltas (a late load of history) would otherwise
    // be folded in after the deletion, and outlive it.
    await this.rollups.compactLinkDeltas();
    let rows = 0;
    for (const rollup of ROLLUP_NAMES) {
      let after = '';
      for (;;) {
        const creatorIds = await this.rollups.findCreatorsWithRows(
          rollup,
          after,
          CREATORS_PER_DELETION,
        );
        if (creatorIds.length === 0) break;
        after = creatorIds[creatorIds.length - 1];
        if (dryRun) {
          rows += await this.rollups.countRowsBefore(rollup, creatorIds, before);
          continue;
        }
        let deleted: number;
        do {
          deleted = await this.rollups.deleteRowsBefore(
            rollup,
            creatorIds,
            before,
            ROWS_PER_DELETION,
          );
          rows += deleted;
        } while (deleted === ROWS_PER_DELETION);
      }
    }
    return rows;
  }

  /** The creator's days in the request that hold clicks or rollups, from its oldest click on. */
  private daysToRebuild(creatorId: string, request: RollupRebuildRequest): Promise<Date[]> {
    return this.daysFromFirstClick(
      creatorId,
      request.from === undefined ? null : startOfDay(request.from),
      request.to === undefined ? null : startOfNextDay(request.to),
    );
  }

  /**
   * Days of `[from, to)` (null: open) with clicks or rollups of the creator, never before the
   * day of its oldest stored click: once raw clicks are dropped after their retention, the
   * rollups of their days are all that is left of them.
   */
  private async daysFromFirstClick(
    creatorId: string,
    from: Date | null,
    to: Date | null,
  ): Promise<Date[]> {
    const firstClickAt = await this.rollups.findFirstClickAt(creatorId);
    if (firstClickAt === null) return [];
    const firstDay = startOfDay(utcDateOf(firstClickAt));
    const start = from !== null && from > firstDay ? from : firstDay;
    if (to !== null && start >= to) return [];
    return this.rollups.findDaysWithRows(creatorId, start, to);
  }
}
