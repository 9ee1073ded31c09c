import { EntityManager } from 'typeorm';
import { PlanEntity } from '../src/account/plan.entity';

/** A plan as the seed writes it: every column but the operator's mark. */
type PlanSeed = Omit<PlanEntity, 'editedByOperator'>;

/**
 * The five plans of the spec. Prices of Publisher (39) and Enterprise (from 299) are the
 * spec's; the others and every included-click figure are ours (the spec leaves them open)
 * and are quoted in the README. Rate figures are docs/design.md section 5's.
 */
export const PLAN_SEEDS: PlanSeed[] = [
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

/** What the boot seed did to the plans. */
export interface PlanSeedResult {
  /** Rows inserted or brought to the values above. */
  written: number;
  /** Rows an operator changed that differ from the values above, left as they are. */
  keptOperatorEdits: number;
}

/**
 * Idempotent, and safe at every boot: inserts the missing plans and brings to the values above
 * only the rows the seed still owns (no operator change since, see `edited_by_operator`). Rows
 * already equal are not written.
 */
export async function seedPlans(manager: EntityManager): Promise<PlanSeedResult> {
  const seeded = manager.connection
    .getMetadata(PlanEntity)
    .columns.filter((column) => !column.isPrimary && column.propertyName !== 'editedByOperator');
  const written = await manager
    .createQueryBuilder(PlanEntity, 'plan')
    .insert()
    .values(PLAN_SEEDS)
    .orUpdate(
      seeded.map((column) => column.databaseName),
      ['id'],
      {
        skipUpdateIfNoValuesChanged: true,
        overwriteCondition: { where: 'NOT "plan".edited_by_operator' },
      },
    )
    .returning(['id'])
    .updateEntity(false)
    .execute();
  const edited = await manager.findBy(PlanEntity, { editedByOperator: true });
  const keptOperatorEdits = edited.filter((row) => {
    const seed = PLAN_SEEDS.find((plan) => plan.id === row.id);
    return (
      seed && seeded.some((column) => column.getEntityValue(row) !== column.getEntityValue(seed))
    );
  }).length;
  return { written: (written.raw as unknown[]).length, keptOperatorEdits };
}
