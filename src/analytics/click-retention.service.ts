import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { InjectConfig } from '../config/config.module';
import { RetentionConfig } from '../config/env';
import { AdvisoryLocks } from '../database/advisory-lock';
import { startOfDay, startOfNextDay, utcDateOf } from './analytics-dates';
import { ClickPartitionsRepository } from './click-partitions.repository';
import {
  ClickPartition,
  droppablePartitions,
  monthStartBefore,
  rollupPurgeBound,
} from './click-retention-months';
import { ClickRollupsService } from './click-rollups.service';
import { VisitorSketchesRepository } from './visitor-sketches.repository';

/** The advisory lock that lets one process at a time run the retention. */
const LOCK_NAME = 'linkpilot:click-retention';
/** Creators of a partition checked per page of the loose index scan. */
const CREATORS_PER_PAGE = 500;
/**
 * How long a drop waits for the lock on `clicks` (every statement on clicks queues behind
 * it meanwhile), and how many times: serving statements end within their 5 s timeout, so one
 * of three 2-second waits normally finds the table free between them.
 */
const DROP_LOCK_TIMEOUT_MS = 2_000;
const DROP_ATTEMPTS = 3;
/** Sketch deletion: creators per loose index scan page, rows per statement (as the rollups'). */
const SKETCH_CREATORS_PER_DELETION = 500;
const SKETCH_ROWS_PER_DELETION = 5_000;

export interface ClickRetentionRequest {
  /** Report what would be dropped and deleted, and change nothing (no check, no repair). */
  dryRun: boolean;
}

/** What a run did (with dryRun: would do). */
export interface ClickRetentionReport {
  ran: true;
  dryRun: boolean;
  /** Raw clicks before this UTC day go, a whole partition at a time. */
  clicksBefore: string;
  /** Partitions dropped, oldest first (with dryRun: due). */
  droppedPartitions: string[];
  /** Partitions kept because their rollups still differed from their clicks after a rebuild. */
  refusedPartitions: string[];
  /** Partitions kept because clicks stayed locked by other statements: the next run tries. */
  deferredPartitions: string[];
  /** Creator-days whose rollups differed from their clicks and were rebuilt before a drop. */
  repairedDays: number;
  /**
   * Rollup rows before this UTC day go: ROLLUP_RETENTION_MONTHS, or earlier where raw clicks
   * older than that are still stored. Null: none may go (a partition from MINVALUE is kept).
   */
  rollupsBefore: string | null;
  /** Rollup rows deleted (with dryRun: due). */
  deletedRollupRows: number;
  /** Unique-visitor sketches (a link's or creator's day) deleted, before `rollupsBefore` too. */
  deletedSketchRows: number;
  /** Clicks older than the raw retention in the DEFAULT partition: kept, and logged. */
  oldDefaultPartitionClicks: number;
}

/** Another process held the retention's lock: nothing was done. */
export interface ClickRetentionSkipped {
  ran: false;
}

/**
 * The analytics retention (docs/analytics.md "Retention"): month partitions of `clicks` older
 * than CLICK_RETENTION_MONTHS are dropped once their rollups are checked against them (and
 * rebuilt where they differ), and rollup rows and unique-visitor sketches older than
 * ROLLUP_RETENTION_MONTHS are deleted.
 *
 * Partitions are dropped, never emptied with DELETE: the triggers on clicks would take a
 * deleted click out of the rollups, which must keep counting it. Drops fire no trigger. The
 * rebuild never touches the days before a creator's oldest stored click, so the rollups of
 * dropped months stay as they were checked.
 */
@Injectable()
export class ClickRetentionService {
  private readonly logger = new Logger(ClickRetentionService.name);
  private isRunning = false;
  private onProgress: (line: string) => void = () => undefined;

  constructor(
    private readonly locks: AdvisoryLocks,
    private readonly partitions: ClickPartitionsRepository,
    private readonly rollups: ClickRollupsService,
    private readonly sketches: VisitorSketchesRepository,
    private readonly clock: Clock,
    @InjectConfig('retention') private readonly retention: RetentionConfig,
  ) {}

  /**
   * One run, unless this process or another (PostgreSQL advisory lock) is running one. What
   * it logs goes to `onProgress` too (the CLI prints it).
   */
  async run(
    request: ClickRetentionRequest,
    onProgress: (line: string) => void = () => undefined,
  ): Promise<ClickRetentionReport | ClickRetentionSkipped> {
    if (this.isRunning) return { ran: false };
    this.isRunning = true;
    this.onProgress = onProgress;
    try {
      const locked = await this.locks.run(LOCK_NAME, () => this.runLocked(request));
      return locked.ran ? locked.result : { ran: false };
    } finally {
      this.isRunning = false;
      this.onProgress = () => undefined;
    }
  }

  /** A line for the log and for the caller's progress. */
  private note(level: 'log' | 'warn' | 'error', message: string): void {
    this.logger[level](message);
    this.onProgress(`analytics retention: ${message}`);
  }

  private async runLocked({ dryRun }: ClickRetentionRequest): Promise<ClickRetentionReport> {
    const nowMs = this.clock.nowMs();
    const clicksBefore = monthStartBefore(nowMs, this.retention.clickMonths);
    const listed = await this.partitions.listPartitions();
    const report: ClickRetentionReport = {
      ran: true,
      dryRun,
      clicksBefore: utcDateOf(clicksBefore),
      droppedPartitions: [],
      refusedPartitions: [],
      deferredPartitions: [],
      repairedDays: 0,
      rollupsBefore: null,
      deletedRollupRows: 0,
      deletedSketchRows: 0,
      oldDefaultPartitionClicks: 0,
    };
    const due = droppablePartitions(listed, clicksBefore);
    for (const partition of due) {
      if (dryRun) report.droppedPartitions.push(partition.name);
      // Clicks busy for one drop are busy for the next: each would hold their queries up again.
      else if (report.deferredPartitions.length > 0) report.deferredPartitions.push(partition.name);
      else await this.retire(partition, report);
    }
    const oldDefaultClicks = await this.checkDefaultPartition(listed, clicksBefore);
    report.oldDefaultPartitionClicks = oldDefaultClicks.count;

    // Rollups of raw clicks still stored stay: a partition kept, old rows of DEFAULT.
    const rollupCutoff = monthStartBefore(nowMs, this.retention.rollupMonths);
    const kept = listed.filter(
      (partition) => !partition.isDefault && !report.droppedPartitions.includes(partition.name),
    );
    const rollupsBefore = rollupPurgeBound(rollupCutoff, [
      ...kept
        .filter((partition) => partition.from === null || partition.from < rollupCutoff)
        .map((partition) => partition.from),
      ...(oldDefaultClicks.oldest === null ? [] : [oldDefaultClicks.oldest]),
    ]);
    if (rollupsBefore !== null) {
      report.rollupsBefore = utcDateOf(rollupsBefore);
      report.deletedRollupRows = await this.rollups.deleteBefore(rollupsBefore, { dryRun });
      if (!dryRun && report.deletedRollupRows > 0) {
        this.note(
          'log',
          `Deleted ${report.deletedRollupRows} click rollup rows before ${report.rollupsBefore} ` +
            `(ROLLUP_RETENTION_MONTHS=${this.retention.rollupMonths})`,
        );
      }
      // The day's visitor counts go with its click counts: a period answers both or neither.
      report.deletedSketchRows = await this.deleteSketchesBefore(report.rollupsBefore, dryRun);
      if (!dryRun && report.deletedSketchRows > 0) {
        this.note(
          'log',
          `Deleted ${report.deletedSketchRows} unique-visitor sketches before ` +
            `${report.rollupsBefore} (ROLLUP_RETENTION_MONTHS=${this.retention.rollupMonths})`,
        );
      }
    }
    return report;
  }

  /**
   * Deletes (with dryRun: counts) the stored sketches of the days before `before`, 500
   * creators at a time and at most 5,000 rows per statement, as the rollups' deletion does.
   */
  private async deleteSketchesBefore(before: string, dryRun: boolean): Promise<number> {
    let rows = 0;
    for (let after = ''; ;) {
      const creatorIds = await this.sketches.findCreatorsWithSketches(
        after,
        SKETCH_CREATORS_PER_DELETION,
      );
      if (creatorIds.length === 0) return rows;
      after = creatorIds[creatorIds.length - 1];
      if (dryRun) {
        rows += await this.sketches.countBefore(creatorIds, before);
        continue;
      }
      let deleted: number;
      do {
        deleted = await this.sketches.deleteBefore(creatorIds, before, SKETCH_ROWS_PER_DELETION);
        rows += deleted;
      } while (deleted === SKETCH_ROWS_PER_DELETION);
    }
  }

  /** Checks the partition's rollups, repairs them, drops it; or says why it stays. */
  private async retire(partition: ClickPartition, report: ClickRetentionReport): Promise<void> {
    const check = await this.checkRollupsOf(partition);
    report.repairedDays += check.repairedDays;
    if (check.stillDiffering.length > 0) {
      report.refusedPartitions.push(partition.name);
      this.note(
        'error',
        `Kept click partition ${partition.name}, due for dropping (CLICK_RETENTION_MONTHS=` +
          `${this.retention.clickMonths}): its rollups still differ from its clicks after a ` +
          `rebuild (${check.stillDiffering.join('; ')}). Nothing is dropped while they do.`,
      );
      return;
    }
    for (let attempt = 1; attempt <= DROP_ATTEMPTS; attempt++) {
      try {
        if (await this.partitions.dropPartition(partition, DROP_LOCK_TIMEOUT_MS)) {
          report.droppedPartitions.push(partition.name);
          this.note(
            'log',
            `Dropped click partition ${partition.name} (${describeRange(partition)}): older ` +
              `than CLICK_RETENTION_MONTHS=${this.retention.clickMonths}; its rollups stay`,
          );
        }
        return;
      } catch (error) {
        if (!isLockWaitAbandoned(error)) throw error;
      }
    }
    report.deferredPartitions.push(partition.name);
    this.note(
      'warn',
      `Could not drop click partition ${partition.name}: other statements held clicks ` +
        `${DROP_ATTEMPTS} times for ${DROP_LOCK_TIMEOUT_MS} ms; the next run tries again, ` +
        `for the partitions due after it too`,
    );
  }

  /**
   * Compares, for every creator with clicks in the partition, each rollup's totals per
   * environment and day with those of the clicks (over the partition's whole UTC days, from the
   * creator's oldest click on, as the rebuild does), rebuilds the days that differ, and
   * compares them again. Checking totals reads each click once, without the rebuild's locks,
   * and a missing, extra or changed click always changes a total; the rebuild's row-by-row
   * compare then runs on the differing days only.
   */
  private async checkRollupsOf(
    partition: ClickPartition,
  ): Promise<{ repairedDays: number; stillDiffering: string[] }> {
    const from = partition.from === null ? null : startOfDay(utcDateOf(partition.from));
    const to = startOfNextDay(utcDateOf((partition.to as Date).getTime() - 1));
    const result = { repairedDays: 0, stillDiffering: [] as string[] };
    for (let after = ''; ;) {
      const creatorIds = await this.partitions.findCreatorsIn(partition, after, CREATORS_PER_PAGE);
      if (creatorIds.length === 0) return result;
      after = creatorIds[creatorIds.length - 1];
      for (const creatorId of creatorIds) {
        const differing = await this.rollups.findDifferingDays(creatorId, from, to);
        if (differing.length === 0) continue;
        const first = differing[0];
        const last = differing[differing.length - 1];
        await this.rollups.rebuild({ creatorId, from: first, to: last });
        const left = await this.rollups.findDifferingDays(
          creatorId,
          startOfDay(first),
          startOfNextDay(last),
        );
        result.repairedDays += differing.length - left.length;
        this.note(
          'warn',
          `Rollups of creator ${creatorId} differed from its clicks in ${partition.name} on ` +
            `${differing.join(', ')}: rebuilt before dropping it`,
        );
        if (left.length > 0) result.stillDiffering.push(`creator ${creatorId}: ${left.join(', ')}`);
      }
    }
  }

  /**
   * Clicks of the DEFAULT partition are never dropped: they landed there because no month
   * partition covered them (an import, a clock far off), and dropping the partition would
   * take every other row with them. Those older than the retention are counted and logged,
   * for an operator to move into partitions of their months, which the next run drops.
   */
  private async checkDefaultPartition(
    listed: ClickPartition[],
    clicksBefore: Date,
  ): Promise<{ count: number; oldest: Date | null }> {
    const defaultPartition = listed.find((partition) => partition.isDefault);
    if (defaultPartition === undefined) return { count: 0, oldest: null };
    const old = await this.partitions.findClicksBefore(defaultPartition, clicksBefore);
    if (old.count > 0) {
      this.note(
        'warn',
        `${old.count} clicks older than CLICK_RETENTION_MONTHS=${this.retention.clickMonths} ` +
          `(the oldest at ${old.oldest?.toISOString()}) are in the DEFAULT partition ` +
          `${defaultPartition.name}: kept, with the rollups of their months, until they are ` +
          `moved into partitions of their months (docs/analytics.md, Retention)`,
      );
    }
    return old;
  }
}

const describeRange = ({ from, to }: ClickPartition): string =>
  `${from === null ? 'MINVALUE' : from.toISOString()} to ${to === null ? 'MAXVALUE' : to.toISOString()}`;

/** A lock not had within lock_timeout (55P03), or a deadlock PostgreSQL broke (40P01). */
function isLockWaitAbandoned(error: unknown): boolean {
  for (
    let cause = error, depth = 0;
    typeof cause === 'object' && cause !== null && depth < 4;
    depth++
  ) {
    const { code } = cause as { code?: unknown };
    if (code === '55P03' || code === '40P01') return true;
    cause = (cause as { driverError?: unknown }).driverError;
  }
  return false;
}
