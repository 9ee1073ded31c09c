import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { ClickCountsService } from '../analytics/click-counts.service';
import { clickStreamKey, edgeShardOf } from '../analytics/click-streams';
import {
  clickDayOf,
  lateSketchesKey,
  lateSketchMember,
  UNIQUE_VISITORS_TTL_SECONDS,
  uniqueVisitorKeys,
} from '../analytics/unique-visitors';
import { Clock } from '../common/clock';
import { InjectConfig } from '../config/config.module';
import { ClickSpoolConfig } from '../config/env';
import { KvStore } from '../kv/kv-store';
import { MemoryKvStore } from '../kv/memory-kv-store';
import { ClickSpool } from './click-spool';
import { QuotaShare, ReplayableClick, SegmentParser } from './click-spool-format';
import {
  RECONCILE_QUOTA_SCRIPT,
  reconciledMarkerKey,
  REPLAY_SPOOLED_CLICK_SCRIPT,
} from './click-spool-replay.script';
import { quotaCounterKey } from './edge-keys';
import { QUOTA_TTL_SECONDS } from './quota.service';

/** Spooled clicks still on disk while Redis answers (one failed call, a replay cut short). */
const RETRY_INTERVAL_MS = 5_000;
/** Clicks replayed at once: one socket write, short enough not to hold live clicks back. */
const CHUNK_SIZE = 200;
/** Lines parsed between two turns of the event loop (SegmentParser). */
const PARSE_SLICE_LINES = 1_000;
/** A reconciliation marker lives as long as the quota counter it guards can. */
const MARKER_TTL_SECONDS = QUOTA_TTL_SECONDS;

interface ReplayTally {
  clicks: number;
  countersReconciled: number;
}

/**
 * Brings the clicks spooled during a Redis outage (click-spool.ts) into Redis once it is back:
 * at once when the store reports it reachable again, at boot for segments a previous run left,
 * and every few seconds while clicks remain. Segment by segment, oldest first:
 *
 * 1. Each quota counter the segment's clicks count in is reconciled, once (a marker per
 *    segment and counter, set in the same script, makes a repeated replay change nothing),
 *    BEFORE those clicks enter the stream, which is what makes it exact. PostgreSQL cannot
 *    hold them yet (they reach it only through the stream), so:
 *    - a counter Redis kept (or rebuilt since it came back, from PostgreSQL's count) lacks
 *      exactly these clicks, and is raised by their number;
 *    - a counter Redis lost, and no click has rebuilt yet, is created from PostgreSQL's count
 *      plus these clicks. No click since Redis came back is missing from that count: a click
 *      counted in Redis creates the counter first, and then the script raises it instead.
 *    Deleting the counters for PostgreSQL to rebuild after the replay would instead lose, on
 *    every node, whatever the stream holds at the moment of the rebuild.
 * 2. The clicks are appended to their streams (and their visitors to the unique-visitor
 *    counts), a chunk at a time, each chunk acknowledged by Redis before the next.
 * 3. Only then is the segment deleted. A crash anywhere before that replays the segment again
 *    at the next start: step 1 changes nothing twice, and a click appended twice is stored
 *    once (the record id is the insert's conflict key), so the spool reaches PostgreSQL
 *    exactly once.
 */
@Injectable()
export class ClickSpoolReplayService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ClickSpoolReplayService.name);
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private isStopping = false;

  constructor(
    private readonly store: KvStore,
    private readonly spool: ClickSpool,
    private readonly clickCounts: ClickCountsService,
    private readonly clock: Clock,
    @InjectConfig('clickSpool') private readonly config: ClickSpoolConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.replays) return;
    // The in-process store never fails, so nothing spools; a spool left in DATA_DIR by a
    // deployment on Redis belongs to that Redis, not to the embedded store.
    if (this.store instanceof MemoryKvStore) return;
    this.store.onReachableAgain(() => void this.replay());
    this.timer = setInterval(() => {
      if (this.spool.hasClicks()) void this.replay();
    }, RETRY_INTERVAL_MS);
    this.timer.unref();
    void this.replay();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.isStopping = true;
    if (this.timer !== null) clearInterval(this.timer);
    await this.running;
  }

  /** Replays what is spooled now; a call during a replay joins it. */
  replay(): Promise<void> {
    this.running ??= this.replayAll()
      .catch((error: unknown) =>
        this.logger.warn(`Click spool replay interrupted, retried shortly: ${String(error)}`),
      )
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async replayAll(): Promise<void> {
    if (this.isStopping || !this.store.isReachable()) return;
    await this.spool.sealActiveSegment();
    const total: ReplayTally = { clicks: 0, countersReconciled: 0 };
    for (const segment of await this.spool.replayableSegments()) {
      if (this.isStopping || !this.store.isReachable()) break;
      const tally = await this.replaySegment(segment);
      total.clicks += tally.clicks;
      total.countersReconciled += tally.countersReconciled;
    }
    if (total.clicks > 0) {
      this.logger.log(
        `Replayed ${total.clicks} spooled clicks into the click streams and reconciled ` +
          `${total.countersReconciled} quota counters with them`,
      );
    }
  }

  /** Steps 1 to 3 of the class comment for one segment. */
  private async replaySegment(segment: string): Promise<ReplayTally> {
    const tally: ReplayTally = { clicks: 0, countersReconciled: 0 };
    const parser = new SegmentParser(await this.spool.readSegment(segment));
    while (parser.parseMore(PARSE_SLICE_LINES)) await yieldToEventLoop();
    const parsed = parser.result();
    if (parsed.damagedLines > 0) {
      this.logger.error(
        `Click spool segment ${segment}: ${parsed.damagedLines} damaged lines skipped`,
      );
    }
    for (const share of parsed.quotaShares) {
      if (await this.reconcile(share, segment)) tally.countersReconciled++;
    }
    for (let start = 0; start < parsed.clicks.length; start += CHUNK_SIZE) {
      // Stopping mid-segment is a crash as far as the segment knows: the next start resumes it.
      if (this.isStopping) return tally;
      const chunk = parsed.clicks.slice(start, start + CHUNK_SIZE);
      await Promise.all(chunk.map((click) => this.replayClick(click)));
    }
    await this.spool.removeSegment(segment, parsed.clicks.length + parsed.damagedLines);
    tally.clicks = parsed.clicks.length;
    return tally;
  }

  /**
   * Step 1 for one counter: PostgreSQL's count is read only for a counter Redis does not have
   * (the script checks again, atomically). False when this segment was reconciled before.
   */
  private async reconcile(share: QuotaShare, segment: string): Promise<boolean> {
    const quotaKey = quotaCounterKey(share.creatorId, share.environment, share.periodId);
    const seed =
      (await this.store.getString(quotaKey)) === null
        ? await this.clickCounts.countSince(share.creatorId, share.environment, share.periodStart)
        : '';
    const used = await this.store.runScript(
      RECONCILE_QUOTA_SCRIPT,
      [quotaKey, reconciledMarkerKey(quotaKey, segment)],
      [share.clicks, MARKER_TTL_SECONDS, seed, QUOTA_TTL_SECONDS],
    );
    return used >= 0;
  }

  /**
   * A click of a day already over (this node's clock) is noted as late: the sketch mover may
   * have taken its day to PostgreSQL before the replay added the visitor.
   */
  private replayClick(click: ReplayableClick): Promise<string> {
    const { creatorId, environment, linkId } = click;
    const day = clickDayOf(click.clickedAtMs);
    const visitorSets = uniqueVisitorKeys(creatorId, environment, linkId, day);
    const shard = edgeShardOf(creatorId);
    const isLate = day < clickDayOf(this.clock.nowMs());
    return this.store.runScript(
      REPLAY_SPOOLED_CLICK_SCRIPT,
      [clickStreamKey(shard), visitorSets.link, visitorSets.creator, lateSketchesKey(shard)],
      [
        click.record,
        click.visitorHash ?? '',
        UNIQUE_VISITORS_TTL_SECONDS,
        isLate ? lateSketchMember({ creatorId, environment, linkId, day }) : '',
      ],
    );
  }
}
