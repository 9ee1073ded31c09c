import { Injectable } from '@nestjs/common';
import { ClickCountsService } from '../analytics/click-counts.service';
import { Clock } from '../common/clock';
import { KvStore } from '../kv/kv-store';
import { AccountResponse } from './account.response';
import { quotaCounterKey } from '../kv/edge-keys';
import { billingPeriodOf } from './billing-period';
import { CreatorsService } from './creators.service';

@Injectable()
export class AccountService {
  constructor(
    private readonly creators: CreatorsService,
    private readonly store: KvStore,
    private readonly clock: Clock,
    private readonly clickCounts: ClickCountsService,
  ) {}

  /** The [S] Account, with click usage read from the period's quota counter. */
  async getAccount(creatorId: string): Promise<AccountResponse> {
    const creator = await this.creators.findWithPlanOrThrow(creatorId);
    const nowMs = this.clock.nowMs();
    const period = billingPeriodOf(nowMs);
    const used =
      (await this.store.getCounter(quotaCounterKey(creatorId, period.id))) ??
      (await this.clickCounts.countSince(creatorId, period.start));
    const included = creator.includedClicksOverride ?? creator.plan.includedClicks;
    const { plan } = creator;
    return {
      creatorId: creator.id,
      email: creator.email,
      displayName: creator.displayName,
      plan: plan.id,
      planDetails: {
        planId: plan.id,
        displayName: plan.displayName,
        monthlyPriceUsd: plan.monthlyPriceUsd,
        includedClicks: plan.includedClicks,
        hasApiAccess: plan.hasApiAccess,
        hasBulkAccess: plan.hasBulkAccess,
        hasWebhooks: plan.hasWebhooks,
      },
      billingCycle: creator.billingCycle,
      clicksUsedThisPeriod: used,
      clicksIncludedThisPeriod: included,
      clicksRemainingThisPeriod: Math.max(0, included - used),
      periodEnd: period.end,
      trialActive: creator.trialEndsAt !== null && creator.trialEndsAt.getTime() > nowMs,
      ...(creator.trialEndsAt ? { trialEndAt: creator.trialEndsAt.toISOString() } : {}),
    };
  }
}
