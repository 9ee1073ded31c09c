import { DataSource } from 'typeorm';
import { PlanEntity } from '../src/account/plan.entity';

/**
 * The five plans of the spec. Prices of Publisher (39) and Enterprise (from 299) are the
 * spec's; the others and every included-click figure are ours (the spec leaves them open)
 * and are quoted in the README. Rate figures are docs/design.md section 5's.
 */
export const PLAN_SEEDS: PlanEntity[] = [
  {
    id: 'free',
    displayName: 'Free',
    monthlyPriceUsd: 0,
    includedClicks: 1_000,
    hasApiAccess: false,
    hasBulkAccess: false,
    hasWebhooks: false,
    hasTestKeys: false,
    hasIpAllowlists: false,
    isHardCap: true,
    apiRequestsPerMinute: null,
    routeRequestsPerMinute: null,
    bulkRequestsPerMinute: null,
    edgeClicksPerMinute: 200,
  },
  {
    id: 'creator',
    displayName: 'Creator',
    monthlyPriceUsd: 9,
    includedClicks: 10_000,
    hasApiAccess: false,
    hasBulkAccess: false,
    hasWebhooks: false,
    hasTestKeys: false,
    hasIpAllowlists: false,
    isHardCap: false,
    apiRequestsPerMinute: null,
    routeRequestsPerMinute: null,
    bulkRequestsPerMinute: null,
    edgeClicksPerMinute: 200,
  },
  {
    id: 'pro',
    displayName: 'Pro',
    monthlyPriceUsd: 19,
    includedClicks: 50_000,
    hasApiAccess: false,
    hasBulkAccess: false,
    hasWebhooks: false,
    hasTestKeys: false,
    hasIpAllowlists: false,
    isHardCap: false,
    apiRequestsPerMinute: null,
    routeRequestsPerMinute: null,
    bulkRequestsPerMinute: null,
    edgeClicksPerMinute: 1_000,
  },
  {
    id: 'publisher',
    displayName: 'Publisher',
    monthlyPriceUsd: 39,
    includedClicks: 250_000,
    hasApiAccess: true,
    hasBulkAccess: false,
    hasWebhooks: false,
    hasTestKeys: false,
    hasIpAllowlists: false,
    isHardCap: false,
    apiRequestsPerMinute: 60,
    routeRequestsPerMinute: 120,
    bulkRequestsPerMinute: null,
    edgeClicksPerMinute: 5_000,
  },
  {
    id: 'enterprise',
    displayName: 'Enterprise',
    monthlyPriceUsd: 299,
    includedClicks: 2_000_000,
    hasApiAccess: true,
    hasBulkAccess: true,
    hasWebhooks: true,
    hasTestKeys: true,
    hasIpAllowlists: true,
    isHardCap: false,
    apiRequestsPerMinute: 600,
    routeRequestsPerMinute: 600,
    bulkRequestsPerMinute: 10,
    edgeClicksPerMinute: 10_000,
  },
];

/** Idempotent: inserts missing plans and brings existing ones to these values. */
export async function seedPlans(dataSource: DataSource): Promise<number> {
  await dataSource.getRepository(PlanEntity).upsert(PLAN_SEEDS, ['id']);
  return PLAN_SEEDS.length;
}
