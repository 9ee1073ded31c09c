import { setTimeout as delay } from 'node:timers/promises';
import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectConfig } from '../config/config.module';
import { ClicksConfig } from '../config/env';
import { restAfterPrimaryWork } from '../database/primary-share';
import { ClickRollupsRepository } from './click-rollups.repository';

/**
 * The most of the time a compaction's backlog keeps the primary busy: its statements run with
 * a rest as long as each took between them. A minute of live clicks folds in well under a
 * second, but a backlog does not: the deltas of an import of history (about one per click when
 * its clicks spread over many hours) took a core for seconds on end, and the redirects' tail
 * went up for as long (docs/benchmarks.md "The redirect beside analytics reads").
 */
const COMPACTION_SHARE_PERCENT = 50;

/**
 * Folds the deltas the click writers append into the link rollup (docs/analytics.md "Writer
 * cost"), every CLICK_ROLLUP_COMPACT_INTERVAL_MS where clicks are written
 * (CLICK_CONSUMER_ENABLED: the server, or the click worker, which loads no cron jobs, hence a
 * timer of its own), and once more at shutdown. No answer depends on it: reads add the deltas
 * up beside the link rows, and the settling and the rebuild fold them in first. It keeps the
 * deltas few, so those reads stay cheap, and lets many clicks share one upsert of a row.
 */
@Injectable()
export class ClickRollupCompactor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ClickRollupCompactor.name);
  private compacting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly stopping = new AbortController();

  /** Between two statements of a backlog: COMPACTION_SHARE_PERCENT, until the process stops. */
  private readonly restAfter = async (busyMs: number): Promise<void> => {
    const restMs = restAfterPrimaryWork(busyMs, COMPACTION_SHARE_PERCENT);
    if (restMs < 1 || this.stopping.signal.aborted) return;
    await delay(restMs, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  };

  constructor(
    @InjectConfig('clicks') private readonly config: ClicksConfig,
    private readonly rollups: ClickRollupsRepository,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.consumerEnabled) return;
    this.timer = setInterval(() => void this.compact(), this.config.rollupCompactIntervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer === null) return;
    clearInterval(this.timer);
    // A compaction under way stops resting, and the last runs at full speed: the process is
    // stopping within its deadline, and its clicks have stopped.
    this.stopping.abort();
    await this.compacting;
    await this.compact();
  }

  /** One compaction, unless one of this process is running (they would wait for each other). */
  async compact(): Promise<void> {
    if (this.compacting !== null) return;
    this.compacting = this.rollups
      .compactLinkDeltas({ restAfter: this.restAfter })
      .then(() => undefined)
      .catch((error: unknown) =>
        this.logger.warn(`Click rollup deltas not compacted: ${String(error)}`),
      )
      .finally(() => {
        this.compacting = null;
      });
    await this.compacting;
  }
}
