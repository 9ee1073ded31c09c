import { Injectable, Logger } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { FxService } from './fx.service';

/** The daily refresh at 00:05 UTC (SPEC, Size and value bounds: FX refresh). */
@Injectable()
export class FxRefreshJob {
  private readonly logger = new Logger(FxRefreshJob.name);

  constructor(private readonly fx: FxService) {}

  @Cron('5 0 * * *', { name: 'fx-refresh', timeZone: 'UTC' })
  async run(): Promise<void> {
    try {
      await this.fx.refresh();
    } catch (error) {
      // The service kept the previous rates and recorded the failure for health.
      this.logger.error(
        `Daily FX refresh failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
