import type { INestApplication } from '@nestjs/common';
import { PlanId } from '../../src/account/plan.entity';
import { CreatorsService } from '../../src/account/creators.service';
import { KeyEnvironment } from '../../src/auth/api-key.entity';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { NetworkAccountsService } from '../../src/networks/network-accounts.service';

export interface TestCreator {
  creatorId: string;
  keyId: string;
  apiKey: string;
  authorization: string;
}

/** A fresh creator of the given plan with one key, through the same services the CLI uses. */
export async function createCreatorWithKey(
  app: INestApplication,
  options: {
    plan: PlanId;
    environment?: KeyEnvironment;
    allowIps?: string[];
    includedClicks?: number;
  },
): Promise<TestCreator> {
  const creator = await app.get(CreatorsService).create({
    planId: options.plan,
    includedClicksOverride: options.includedClicks ?? null,
  });
  await app.get(NetworkAccountsService).createDemoAccounts(creator.id);
  const issued = await app
    .get(ApiKeysService)
    .issue(creator.id, creator.plan, options.environment ?? 'live', options.allowIps ?? []);
  return {
    creatorId: creator.id,
    keyId: issued.keyId,
    apiKey: issued.apiKey,
    authorization: `Bearer ${issued.apiKey}`,
  };
}
