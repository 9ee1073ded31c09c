import { Injectable } from '@nestjs/common';
import { QuotaService } from '../clicks/quota.service';
import { AnalyticsService } from '../analytics/analytics.service';
import type { RecordScope } from '../common/access/auth-context';
import { Clock } from '../common/clock';
import { ConversionsService } from '../conversions/conversions.service';
import { LinksService } from '../links/links.service';
import { SandboxResetResponse } from './sandbox.response';

/**
 * The test-key sandbox's reset: a creator's test links and test clicks removed for good and
 * the test usage counter forgotten, so an integration test can start from nothing. Live
 * records are out of its reach: each step refuses any scope but a test one.
 */
@Injectable()
export class SandboxService {
  constructor(
    private readonly links: LinksService,
    private readonly analytics: AnalyticsService,
    private readonly quota: QuotaService,
    private readonly conversions: ConversionsService,
    private readonly clock: Clock,
  ) {}

  async reset(creatorId: string): Promise<SandboxResetResponse> {
    const scope: RecordScope = { creatorId, environment: 'test' };
    // Links first: once they are gone (and evicted), no new test click can be recorded.
    const deletedLinks = await this.links.purgeTestLinks(scope);
    const deletedClicks = await this.analytics.purgeTestClicks(scope);
    const deletedConversions = await this.conversions.purgeTestConversions(scope);
    await this.quota.resetTestUsage(scope, this.clock.nowMs());
    return { environment: 'test', deletedLinks, deletedClicks, deletedConversions };
  }
}
