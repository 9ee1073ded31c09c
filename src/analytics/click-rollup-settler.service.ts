import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { Clock } from '../common/clock';
import { InjectConfig } from '../config/config.module';
import { ClicksConfig } from '../config/env';
import { ClickRollupsRepository } from './click-rollups.repository';

const HOUR_MS = 60 * 60 * 1000;
/**
 * An hour is settled this long after it ends: the click writer's usual lag is well under a
 * second, and a click that comes later still reaches every rollup (at the writer's old cost).
 */
const SETTLE_DELAY_MS = 5 * 60 * 1000;
/** How often a process checks for an hour to settle (a read of one row when there is none). */
const CHECK_INTERVAL_MS = 60 * 1000;

/**
 * Settles each UTC hour into the creator rollups once it is over (docs/analytics.md "Writer
 * cost"): the click writer's trigger adds the clicks of the open hours to the link rollup
 * only, and reads take those hours from there until the watermark passes them. Runs where
 * clicks are written (CLICK_CONSUMER_ENABLED: the server, or the click worker, which loads no
 * cron jobs, hence a timer of its own), at boot and every minute; several processes may run
 * it at once, and the first to lock the rollups settles the hour. An hour per
 * transaction, as writers wait for it: the link rollup rows of one hour, not a backlog of
 * days at once.
 */
@Injectable()
export class ClickRollupSettler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ClickRollupSettler.name);
  private settling: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @InjectConfig('clicks') private readonly config: ClicksConfig,
    private readonly rollups: ClickRollupsRepository,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.consumerEnabled) return;
    void this.settleDue();
    this.timer = setInterval(() => void this.settleDue(), CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    await this.settling;
  }

  async settleDue(): Promise<void> {
    if (!this.config.consumerEnabled || this.settling !== null) return;
    const dueMs = Math.floor((this.clock.nowMs() - SETTLE_DELAY_MS) / HOUR_MS) * HOUR_MS;
    this.settling = this.settleUntil(new Date(dueMs))
      .catch((error: unknown) => this.logger.warn(`Click rollups not settled: ${String(error)}`))
      .finally(() => {
        this.settling = null;
      });
    await this.settling;
  }

  /** Moves the watermark forward to `until`, an hour with link rollup rows at a time. */
  async settleUntil(until: Date): Promise<void> {
    let watermarkMs = await this.rollups.findWatermark();
    while (watermarkMs < until.getTime()) {
      const next = await this.rollups.findFirstLinkHourFrom(new Date(watermarkMs));
      // Hours without rows cost nothing to pass: straight to the next hour with rows.
      const toMs =
        next === null ? until.getTime() : Math.min(until.getTime(), next.getTime() + HOUR_MS);
      // Another process may have moved it further meanwhile: then this move changed nothing.
      watermarkMs = Math.max(toMs, await this.rollups.moveWatermark(new Date(toMs)));
    }
  }
}
