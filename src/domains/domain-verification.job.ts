import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { DomainsService } from './domains.service';

/** Every 5 minutes: look for the TXT record of the domains still unverified. */
@Injectable()
export class DomainVerificationJob {
  private readonly logger = new Logger(DomainVerificationJob.name);

  constructor(private readonly domains: DomainsService) {}

  @Cron(CronExpression.EVERY_5_MINUTES, { name: 'domain-verification', timeZone: 'UTC' })
  async run(): Promise<void> {
    try {
      await this.domains.verifyPending();
    } catch (error) {
      // The next run retries: nothing was recorded for the domains not reached.
      this.logger.error(
        `Domain verification sweep failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
