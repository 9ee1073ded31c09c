import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';

/** The columns a new key is inserted with (created_at is the database's). */
type NewApiKeyRow = Omit<ApiKeyEntity, 'createdAt' | 'creator'>;

/** The `api_keys` table. */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly apiKeys: Repository<ApiKeyEntity>) {}

  /** The key with its creator and the creator's plan, in one indexed join. */
  findByHashWithPlan(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.apiKeys.findOne({ where: { keyHash }, relations: { creator: { plan: true } } });
  }

  findById(keyId: string): Promise<ApiKeyEntity | null> {
    return this.apiKeys.findOneBy({ id: keyId });
  }

  /** Inserts the key; answers the stored row (with the database's created_at). */
  insert(row: NewApiKeyRow): Promise<ApiKeyEntity> {
    return this.apiKeys.save(this.apiKeys.create(row));
  }

  async setRevokedAt(keyId: string, revokedAt: Date): Promise<void> {
    await this.apiKeys.update({ id: keyId }, { revokedAt });
  }

  async setLastUsedAt(keyId: string, lastUsedAt: Date): Promise<void> {
    await this.apiKeys.update({ id: keyId }, { lastUsedAt });
  }
}
