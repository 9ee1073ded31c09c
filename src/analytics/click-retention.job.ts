import { Injectable, Logger } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { ClickRetentionService } from './click-retention.service';

/**
 * The daily retention run at 00:45 UTC, after the click partitions of the coming months are
 * made (00:15). Every server fires it; the advisory lock lets one of them run it.
 */
@Injectable()
export class ClickRetentionJob {
  private readonly logger = new Logger(ClickRetentionJob.name);

  constructor(private readonly retention: ClickRetentionService) {}

  @Cron('45 0 * * *', { name: 'click-retention', timeZone: 'UTC' })
  async run(): Promise<void> {
    try {
      const report = await this.retention.run({ dryRun: false });
      if (!report.ran) this.logger.log('Click retention is running elsewhere; skipped here');
    } catch (error) {
      // Nothing half done: every drop and deletion is its own transaction. Tomorrow's run
      // starts over.
      this.logger.error(
        `Click retention failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
