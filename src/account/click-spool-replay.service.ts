import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { clickStreamKey, edgeShardOf } from '../analytics/click-streams';
import {
  clickDayOf,
  UNIQUE_VISITORS_TTL_SECONDS,
  uniqueVisitorKeys,
} from '../analytics/unique-visitors';
import { KvStore } from '../kv/kv-store';
import { ClickSpool } from './click-spool';
import { parseSegment, ReplayableClick } from './click-spool-format';
import {
  RECONCILE_QUOTA_SCRIPT,
  reconciledMarkerKey,
  REPLAY_SPOOLED_CLICK_SCRIPT,
} from './click-spool-replay.script';
import { quotaCounterKey } from './edge-keys';

/** Spooled clicks still on disk while Redis answers (one failed call, a replay cut short). */
const RETRY_INTERVAL_MS = 5_000;
/** Clicks replayed at once: one socket write, short enough not to hold live clicks back. */
const CHUNK_SIZE = 200;
/** A reconciliation marker lives as long as the quota counter it guards can. */
const MARKER_TTL_SECONDS = 40 * 24 * 3600;

interface ReplayTally {
  clicks: number;
  countersRaised: number;
  /** Counters Redis no longer had: rebuilt from PostgreSQL by their next click. */
  countersMissing: number;
}

/**
 * Brings the clicks spooled during a Redis outage (click-spool.ts) into Redis once it is back:
 * at once when the store reports it reachable again, at boot for segments a previous run left,
 * and every few seconds while clicks remain. Segment by segment, oldest first:
 *
 * 1. Each quota counter the segment's clicks count in is raised by their number, once (a
 *    marker per segment and counter, set in the same script, makes a repeated replay add
 *    nothing). This runs BEFORE the clicks enter the stream, which is what makes it exact: a
 *    counter that exists now was kept from before the outage, or rebuilt from PostgreSQL's
 *    count since Redis came back, and PostgreSQL cannot hold these clicks yet (they reach it
 *    only through the stream), so adding them counts each exactly once. A counter that is
 *    missing (Redis lost its data) is left missing: the next click rebuilds it from
 *    PostgreSQL's count, which holds these clicks as soon as the consumer has written them.
 *    Deleting the counters for PostgreSQL to rebuild instead would lose, on every node, the
 *    clicks still in the stream at that moment.
 * 2. The clicks are appended to their streams (and their visitors to the unique-visitor
 *    counts), a chunk at a time, each chunk acknowledged by Redis before the next.
 * 3. Only then is the segment deleted. A crash anywhere before that replays the segment again
 *    at the next start: step 1 adds nothing twice, and a click appended twice is stored once
 *    (the record id is the insert's conflict key), so the spool reaches PostgreSQL exactly
 *    once.
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
  ) {}

  onApplicationBootstrap(): void {
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
    const total: ReplayTally = { clicks: 0, countersRaised: 0, countersMissing: 0 };
    for (const segment of await this.spool.replayableSegments()) {
      if (this.isStopping || !this.store.isReachable()) break;
      const tally = await this.replaySegment(segment);
      total.clicks += tally.clicks;
      total.countersRaised += tally.countersRaised;
      total.countersMissing += tally.countersMissing;
    }
    if (total.clicks > 0) {
      this.logger.log(
        `Replayed ${total.clicks} spooled clicks into the click streams; quota counters raised: ` +
          `${total.countersRaised}, missing (rebuilt from PostgreSQL): ${total.countersMissing}`,
      );
    }
  }

  /** Steps 1 to 3 of the class comment for one segment. */
  private async replaySegment(segment: string): Promise<ReplayTally> {
    const tally: ReplayTally = { clicks: 0, countersRaised: 0, countersMissing: 0 };
    const parsed = parseSegment(await this.spool.readSegment(segment));
    if (parsed.damagedLines > 0) {
      this.logger.error(
        `Click spool segment ${segment}: ${parsed.damagedLines} damaged lines skipped`,
      );
    }
    for (const share of parsed.quotaShares) {
      const quotaKey = quotaCounterKey(share.creatorId, share.environment, share.periodId);
      const used = await this.store.runScript(
        RECONCILE_QUOTA_SCRIPT,
        [quotaKey, reconciledMarkerKey(quotaKey, segment)],
        [share.clicks, MARKER_TTL_SECONDS],
      );
      if (used > 0) tally.countersRaised++;
      else if (used === 0) tally.countersMissing++;
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

  private replayClick(click: ReplayableClick): Promise<string> {
    const visitorSets = uniqueVisitorKeys(
      click.creatorId,
      click.environment,
      click.linkId,
      clickDayOf(click.clickedAtMs),
    );
    return this.store.runScript(
      REPLAY_SPOOLED_CLICK_SCRIPT,
      [clickStreamKey(edgeShardOf(click.creatorId)), visitorSets.link, visitorSets.creator],
      [click.record, click.visitorHash ?? '', UNIQUE_VISITORS_TTL_SECONDS],
    );
  }
}
