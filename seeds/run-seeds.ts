import { DataSource } from 'typeorm';
import { seedFxSnapshot } from './fx.seed';
import { seedMerchants } from './merchants.seed';
import { seedPlans } from './plans.seed';

/** Every seed, in dependency order; each is idempotent, so this runs at every `npm start`. */
export async function runSeeds(dataSource: DataSource): Promise<Record<string, number>> {
  return {
    plans: await seedPlans(dataSource),
    merchants: await seedMerchants(dataSource),
    fxRates: await seedFxSnapshot(dataSource),
  };
}
