import { Injectable } from '@nestjs/common';
import { startOfDay, startOfNextDay, utcDateOf } from './analytics-dates';
import { ClickRollupsRepository } from './click-rollups.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What to rebuild: one creator or all, whole UTC days, both ends inclusive and optional. */
export interface RollupRebuildRequest {
  creatorId?: string;
  from?: string;
  to?: string;
}

/** One batch done: a creator-day. */
export interface RollupRebuildProgress {
  creatorId: string;
  /** 1-based position of the creator among those rebuilt, and how many there are. */
  creator: number;
  creators: number;
  day: string;
  /** 1-based position of the day among the creator's, and how many there are. */
  batch: number;
  batches: number;
  rows: number;
  differingRows: number;
}

export interface RollupRebuildSummary {
  creators: number;
  batches: number;
  /** Rollup rows of the rebuilt days. */
  rows: number;
  /** Rows that were missing, extra or wrong, now corrected. */
  differingRows: number;
  /** Creator-days whose rollups differed and were rewritten. */
  repairedBatches: number;
}

/**
 * `linkpilot analytics rebuild`: recomputes the click rollups from the clicks, a creator-day
 * per transaction, for restored backups, imported history and repairs. Safe while clicks are
 * written (each batch locks the rollups first) and idempotent: a batch already right is left
 * alone. A creator's days before its oldest stored click are never touched: when raw clicks
 * are dropped after their retention, their rollups are all that is left of them.
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
      batches: 0,
      rows: 0,
      differingRows: 0,
      repairedBatches: 0,
    };
    for (const [index, creatorId] of creatorIds.entries()) {
      const days = await this.daysToRebuild(creatorId, request);
      for (const [dayIndex, day] of days.entries()) {
        const result = await this.rollups.rebuildBatch(
          creatorId,
          day,
          new Date(day.getTime() + DAY_MS),
        );
        summary.batches++;
        summary.rows += result.rows;
        summary.differingRows += result.differingRows;
        if (result.differingRows > 0) summary.repairedBatches++;
        onProgress({
          creatorId,
          creator: index + 1,
          creators: creatorIds.length,
          day: utcDateOf(day),
          batch: dayIndex + 1,
          batches: days.length,
          ...result,
        });
      }
    }
    return summary;
  }

  /** The creator's days in the request that hold clicks or rollups, from its oldest click on. */
  private async daysToRebuild(creatorId: string, request: RollupRebuildRequest): Promise<Date[]> {
    const firstClickAt = await this.rollups.findFirstClickAt(creatorId);
    if (firstClickAt === null) return [];
    const firstDay = startOfDay(utcDateOf(firstClickAt));
    const requestedFrom = request.from === undefined ? firstDay : startOfDay(request.from);
    const from = requestedFrom > firstDay ? requestedFrom : firstDay;
    const to = request.to === undefined ? null : startOfNextDay(request.to);
    if (to !== null && from >= to) return [];
    return this.rollups.findDaysWithRows(creatorId, from, to);
  }
}
