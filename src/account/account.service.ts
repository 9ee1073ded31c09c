import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AccountResponse } from './account.response';
import { billingPeriodOf } from './billing-period';
import { CreatorsService } from './creators.service';
import { QuotaService } from './quota.service';

@Injectable()
export class AccountService {
  constructor(
    private readonly creators: CreatorsService,
    private readonly quota: QuotaService,
    private readonly clock: Clock,
  ) {}

  /** The [S] Account, with click usage read from the period's quota counter. */
  async getAccount(creatorId: string): Promise<AccountResponse> {
    const creator = await this.creators.findWithPlanOrThrow(creatorId);
    const nowMs = this.clock.nowMs();
    const period = billingPeriodOf(nowMs);
    const used = await this.quota.usedThisPeriod(creatorId, nowMs);
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
