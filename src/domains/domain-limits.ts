import type { PlanId } from '../account/plan.entity';

/**
 * Branded domains per account and key environment, by plan (docs/limits.md). Zero: the plan
 * has none, and POST /domains answers PLAN_UPGRADE_REQUIRED.
 */
const DOMAINS_PER_PLAN: Readonly<Record<PlanId, number>> = {
  free: 0,
  creator: 0,
  pro: 3,
  publisher: 10,
  enterprise: 100,
};

/** The plan's count; a plan id this list does not know (an operator's own) has none. */
export const domainsAllowedOn = (planId: string): number =>
  (DOMAINS_PER_PLAN as Record<string, number | undefined>)[planId] ?? 0;
