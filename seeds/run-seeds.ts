import { DataSource } from 'typeorm';
import { seedFxSnapshot } from './fx.seed';
import { seedMerchants } from './merchants.seed';
import { seedPlans } from './plans.seed';

/**
 * Every seed, in dependency order; each is idempotent and leaves operator changes alone, so
 * this runs at every `npm start`. Returns rows written per seed.
 */
export async function runSeeds(dataSource: DataSource): Promise<Record<string, number>> {
  const plans = await seedPlans(dataSource.manager);
  const merchants = await seedMerchants(dataSource);
  return {
    plans: plans.written,
    plansKeptAsEditedByOperator: plans.keptOperatorEdits,
    merchants: merchants.written,
    merchantsKeptAsEditedByOperator: merchants.keptOperatorEdits,
    fxRates: await seedFxSnapshot(dataSource),
  };
}
