import type { RecordScope } from '../common/access/auth-context';
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AccountResponse } from './account.response';
import { billingPeriodOf } from './billing-period';
import { CreatorsService } from './creators.service';
import { ClickUsage } from './click-usage';

@Injectable()
export class AccountService {
  constructor(
    private readonly creators: CreatorsService,
    private readonly usage: ClickUsage,
    private readonly clock: Clock,
  ) {}

  /**
   * The [S] Account, with click usage read from the period's quota counter of the caller's
   * environment: live usage for a live key, the sandbox's for a test key.
   */
  async getAccount(scope: RecordScope): Promise<AccountResponse> {
    const creator = await this.creators.findWithPlanOrThrow(scope.creatorId);
    const nowMs = this.clock.nowMs();
    const period = billingPeriodOf(nowMs);
    const used = await this.usage.usedThisPeriod(scope, nowMs);
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
      environment: scope.environment,
      clicksUsedThisPeriod: used,
      clicksIncludedThisPeriod: included,
      clicksRemainingThisPeriod: Math.max(0, included - used),
      periodEnd: period.end,
      trialActive: creator.trialEndsAt !== null && creator.trialEndsAt.getTime() > nowMs,
      ...(creator.trialEndsAt ? { trialEndAt: creator.trialEndsAt.toISOString() } : {}),
    };
  }
}
