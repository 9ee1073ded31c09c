import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectConfig } from '../config/config.module';
import { ClicksConfig } from '../config/env';
import { ClickRollupsRepository } from './click-rollups.repository';

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
    await this.compacting;
    await this.compact();
  }

  /** One compaction, unless one of this process is running (they would wait for each other). */
  async compact(): Promise<void> {
    if (this.compacting !== null) return;
    this.compacting = this.rollups
      .compactLinkDeltas()
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
