import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AdvisoryLocks } from '../database/advisory-lock';
import { KvStore } from '../kv/kv-store';
import { startOfNextDay } from './analytics-dates';
import { CLICK_STREAMS } from './click-streams';
import {
  countOf,
  countSerialized,
  InvalidHyperLogLogError,
  mergeSerialized,
  parseSerialized,
  serialize,
} from './hyperloglog';
import {
  clickDayOf,
  dayBefore,
  DELETE_MOVED_SKETCHES_SCRIPT,
  FORGET_LATE_SKETCHES_SCRIPT,
  LATE_SKETCH_KEYS,
  LATE_SKETCHES_SCRIPT,
  LateSketch,
  LEGACY_TTL_DAYS,
  parseLateSketchMember,
  sha1HexOf,
  sketchKeyOf,
  UNIQUE_VISITORS_TTL_DAYS,
} from './unique-visitors';
import { SketchDay, VisitorSketchesRepository } from './visitor-sketches.repository';

/** Sketches read, merged and written per transaction (one MGET, one upsert). */
const BATCH_SKETCHES = 500;
/** The advisory lock one mover holds at a time (database/advisory-lock.ts). */
const LOCK_NAME = 'linkpilot:visitor-sketch-mover';

/** What one run did. */
export interface SketchMoveReport {
  /** False when another server's run held the lock: this one did nothing. */
  ran: boolean;
  /** Days moved, oldest first. */
  days: string[];
  /** Sketches written to PostgreSQL (links' and creators'), late ones included. */
  sketches: number;
  /** Keys deleted from the key-value store once PostgreSQL held them. */
  deletedKeys: number;
  /** Late link-days (spool replays) moved again. */
  lateSketches: number;
  /**
   * The first day left for a later run because clicks admitted before its end are still in
   * the click streams (not yet in the rollups the days' links are found in); null if none.
   */
  waitingFor: string | null;
}

/**
 * Takes the unique-visitor sketches of the days that are over from the key-value store to
 * PostgreSQL (docs/analytics.md "Unique visitors"), so the store holds today's and
 * yesterday's only. Every day before yesterday not moved yet, oldest first:
 *
 * 1. The day's sketches are found in PostgreSQL, not by scanning keys (awkward on a
 *    cluster): the creators with counted clicks that day (route days), then each one's links
 *    (link rollup). A day waits while the click streams still hold clicks admitted before its
 *    end (their links may be missing from the rollups), at most until its keys would expire.
 * 2. A creator's keys (one hash slot) are read in batches (MGET), each merged by register
 *    maximum with the row already stored, if any, and upserted, in one transaction: running
 *    twice, or over a day partly moved, changes nothing.
 * 3. Once committed, each key is deleted if it still holds what was read (a visitor added
 *    meanwhile keeps it, for a later run). A key gone or never written moves nothing: the
 *    day counts what PostgreSQL has.
 * 4. The day is marked moved.
 *
 * Spool replays of days already over note their link-days in late sets (one per shard); each
 * run moves those again. One server runs at a time: a session advisory lock, released with
 * its connection if the server dies.
 */
@Injectable()
export class VisitorSketchMover {
  private readonly logger = new Logger(VisitorSketchMover.name);
  private running: Promise<SketchMoveReport> | null = null;
  private isStopping = false;

  constructor(
    private readonly locks: AdvisoryLocks,
    private readonly sketches: VisitorSketchesRepository,
    private readonly store: KvStore,
    private readonly clock: Clock,
  ) {}

  /** One run, after the one under way if any (each run reads the clock afresh). */
  async moveDueDays(): Promise<SketchMoveReport> {
    while (this.running !== null) await this.running.catch(() => undefined);
    this.running = this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Stops between batches: what is committed stays, the rest waits for the next run. */
  async stop(): Promise<void> {
    this.isStopping = true;
    await this.running?.catch(() => undefined);
  }

  private async run(): Promise<SketchMoveReport> {
    const report: SketchMoveReport = {
      ran: false,
      days: [],
      sketches: 0,
      deletedKeys: 0,
      lateSketches: 0,
      waitingFor: null,
    };
    const locked = await this.locks.run(LOCK_NAME, async () => {
      await this.moveDays(report);
      await this.moveLateSketches(report);
    });
    report.ran = locked.ran;
    if (report.sketches > 0 || report.days.length > 0) {
      this.logger.log(
        `Moved ${report.sketches} unique-visitor sketches of ${report.days.length} days ` +
          `to PostgreSQL (${report.lateSketches} late link-days), deleted ${report.deletedKeys} keys`,
      );
    }
    return report;
  }

  private async moveDays(report: SketchMoveReport): Promise<void> {
    const today = clickDayOf(this.clock.nowMs());
    const days = await this.sketches.daysNotMoved({
      from: dayBefore(today, LEGACY_TTL_DAYS),
      to: dayBefore(today, 2),
    });
    for (const day of days) {
      if (this.isStopping) return;
      const keysExpireSoon = day <= dayBefore(today, UNIQUE_VISITORS_TTL_DAYS);
      if (!keysExpireSoon && !(await this.clicksWrittenThrough(day))) {
        report.waitingFor = day;
        return;
      }
      let sketches = 0;
      for (const of of await this.sketches.creatorsWithClicksOn(day)) {
        if (this.isStopping) return;
        const links = await this.sketches.linksClickedOn(of);
        sketches += await this.moveSketches(of, [null, ...links], report);
      }
      await this.sketches.markMoved(day, sketches);
      report.days.push(day);
      report.sketches += sketches;
    }
  }

  /** Whether the click streams hold no click admitted before the end of `day`. */
  private async clicksWrittenThrough(day: string): Promise<boolean> {
    const firstIds = await Promise.all(
      CLICK_STREAMS.map((stream) => this.store.firstStreamEntryId(stream)),
    );
    return streamsWrittenThrough(firstIds, day, this.clock.nowMs(), Date.now());
  }

  /** Link-days the spool replays noted, of days before yesterday. */
  private async moveLateSketches(report: SketchMoveReport): Promise<void> {
    const yesterday = dayBefore(clickDayOf(this.clock.nowMs()));
    for (const lateKey of LATE_SKETCH_KEYS) {
      if (this.isStopping) return;
      const members = await this.store.runScript(LATE_SKETCHES_SCRIPT, [lateKey], []);
      const due = new Map<string, { of: SketchDay; links: Set<string>; members: string[] }>();
      for (const member of members) {
        const late: LateSketch | null = parseLateSketchMember(member);
        if (late !== null && late.day >= yesterday) continue;
        if (late === null) {
          // Not of this version's making: nothing to move, nothing to keep.
          await this.store.runScript(FORGET_LATE_SKETCHES_SCRIPT, [lateKey], [member]);
          continue;
        }
        const groupKey = `${late.creatorId}|${late.environment}|${late.day}`;
        const group = due.get(groupKey) ?? {
          of: { creatorId: late.creatorId, environment: late.environment, day: late.day },
          links: new Set<string>(),
          members: [],
        };
        group.links.add(late.linkId);
        group.members.push(member);
        due.set(groupKey, group);
      }
      for (const { of, links, members: moved } of due.values()) {
        report.sketches += await this.moveSketches(of, [null, ...links], report);
        report.lateSketches += links.size;
        await this.store.runScript(FORGET_LATE_SKETCHES_SCRIPT, [lateKey], moved);
      }
    }
  }

  /** Steps 2 and 3 for some sketches of one creator-day; answers how many were written. */
  private async moveSketches(
    of: SketchDay,
    linkIds: (string | null)[],
    report: SketchMoveReport,
  ): Promise<number> {
    let written = 0;
    for (let at = 0; at < linkIds.length; at += BATCH_SKETCHES) {
      const batch = linkIds.slice(at, at + BATCH_SKETCHES);
      const keys = batch.map((linkId) => sketchKeyOf(of.creatorId, of.environment, linkId, of.day));
      const values = await this.store.getBytes(keys);
      const found: { linkId: string | null; key: string; value: Buffer; visitors: number }[] = [];
      batch.forEach((linkId, i) => {
        const value = values[i];
        if (value === null) return;
        try {
          found.push({ linkId, key: keys[i], value, visitors: countSerialized(value) });
        } catch (error) {
          // Not a sketch this service wrote: left where it is, for someone to look at.
          if (!(error instanceof InvalidHyperLogLogError)) throw error;
          this.logger.warn(`${keys[i]} holds no HyperLogLog: not moved`);
        }
      });
      if (found.length === 0) continue;
      await this.sketches.mergeIntoStored(
        of,
        found.map((entry) => entry.linkId),
        (stored) => {
          const before = new Map(stored.map((sketch) => [sketch.linkId, sketch.registers]));
          // Redis's own value is stored as it is, unless a row is there to merge with.
          return found.map(({ linkId, value, visitors }) => {
            const registers = before.get(linkId);
            if (registers === undefined) return { linkId, visitors, registers: value };
            const union = parseSerialized(value);
            mergeSerialized(union, registers);
            return { linkId, visitors: countOf(union), registers: serialize(union) };
          });
        },
      );
      written += found.length;
      report.deletedKeys += await this.store.runScript(
        DELETE_MOVED_SKETCHES_SCRIPT,
        found.map((entry) => entry.key),
        found.map((entry) => sha1HexOf(entry.value)),
      );
    }
    return written;
  }
}

/**
 * Whether every click admitted before the end of `day` has left the click streams (and so is
 * in the rollups), from each stream's first entry id (null: empty): a trimmed stream starts
 * at its oldest click not yet written. An id is the store's wall-clock time, so an entry's
 * age is taken on the wall clock (`wallNowMs`) and compared with the time since the day
 * ended on the service's clock (`nowMs`; the two differ only where tests move the latter).
 */
export function streamsWrittenThrough(
  firstIds: readonly (string | null)[],
  day: string,
  nowMs: number,
  wallNowMs: number,
): boolean {
  const cutoffMs = wallNowMs - (nowMs - startOfNextDay(day).getTime());
  return firstIds.every((id) => id === null || Number(id.split('-')[0]) >= cutoffMs);
}
