import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { ProbesService } from './probes.service';

/** Every 10 minutes: expire deep-link results past their TTL and queue their re-probes. */
@Injectable()
export class ProbeExpiryJob {
  private readonly logger = new Logger(ProbeExpiryJob.name);

  constructor(private readonly probes: ProbesService) {}

  @Cron(CronExpression.EVERY_10_MINUTES, { name: 'probe-expiry', timeZone: 'UTC' })
  async run(): Promise<void> {
    try {
      await this.probes.expireAndRequeue();
    } catch (error) {
      // The next run retries: nothing was queued for links the sweep could not read.
      this.logger.error(
        `Probe expiry sweep failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
