import { getRepositoryToken } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { hashApiKey } from '../../src/auth/api-key-format';
import { ApiKeyEntity } from '../../src/auth/api-key.entity';
import { ApiKeysRepository } from '../../src/auth/api-keys.repository';
import { createCreatorWithKey } from '../factories/creator.factory';
import { startTestApp, TestApp } from '../support/test-app';

describe('API key lookup (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each(['publisher', 'enterprise'] as const)(
    "should read a key of the %s plan with its creator and plan as TypeORM's findOne with relations does",
    async (plan) => {
      const creator = await createCreatorWithKey(t.app, { plan });
      const keyHash = hashApiKey(creator.apiKey);
      const typeorm = await t.app
        .get<Repository<ApiKeyEntity>>(getRepositoryToken(ApiKeyEntity))
        .findOne({ where: { keyHash }, relations: { creator: { plan: true } } });

      const found = await t.app.get(ApiKeysRepository).findByHashWithPlan(keyHash);

      expect(typeorm).not.toBeNull();
      // Field for field, types included (dates as Dates, numerics through their transformer).
      expect(found).toStrictEqual(typeorm);
    },
  );

  it('should answer null for a hash no key has', async () => {
    await expect(
      t.app.get(ApiKeysRepository).findByHashWithPlan(hashApiKey('lp_live_sk_unknown')),
    ).resolves.toBeNull();
  });
});
