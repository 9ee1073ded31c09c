import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityMetadata, Repository } from 'typeorm';
import { CreatorEntity } from '../account/creator.entity';
import { PlanEntity } from '../account/plan.entity';
import { ApiKeyEntity } from './api-key.entity';

/** The columns a new key is inserted with (created_at is the database's). */
type NewApiKeyRow = Omit<ApiKeyEntity, 'createdAt' | 'creator'>;

/** The `api_keys` table. */
@Injectable()
export class ApiKeysRepository {
  /**
   * Every API call authenticates with this read, so its SQL is made once, from the entities'
   * metadata, and its row hydrated by the driver column by column: TypeORM's `findOne` with
   * relations built the query anew on each call (alias hashing, regular expressions over the
   * whole statement) and took milliseconds of CPU per call, which a burst of API calls spent
   * while the redirects waited on the same event loop.
   */
  private readonly byHash: ReturnType<typeof joinedSelect>;

  constructor(@InjectRepository(ApiKeyEntity) private readonly apiKeys: Repository<ApiKeyEntity>) {
    const { connection } = apiKeys.manager;
    this.byHash = joinedSelect([
      ['k', apiKeys.metadata],
      ['c', connection.getMetadata(CreatorEntity)],
      ['p', connection.getMetadata(PlanEntity)],
    ]);
  }

  /** The key with its creator and the creator's plan, in one indexed join. */
  async findByHashWithPlan(keyHash: string): Promise<ApiKeyEntity | null> {
    const rows = await this.apiKeys.query<Record<string, unknown>[]>(
      `SELECT ${this.byHash.columns}
         FROM api_keys AS k
         LEFT JOIN creators AS c ON c.id = k.creator_id
         LEFT JOIN plans AS p ON p.id = c.plan_id
        WHERE k.key_hash = $1`,
      [keyHash],
    );
    if (rows.length === 0) return null;
    const [key, creator, plan] = this.byHash.hydrate(rows[0]) as [
      ApiKeyEntity,
      CreatorEntity | null,
      PlanEntity | null,
    ];
    if (creator !== null) {
      if (plan !== null) creator.plan = plan;
      key.creator = creator;
    }
    return key;
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

/**
 * A select list over several aliased tables (`alias_column` per column) and the hydration of
 * one of its rows into one entity per table (null where a LEFT JOIN found no row), each value
 * through the driver as TypeORM hydrates it (types, transformers).
 */
function joinedSelect(tables: readonly (readonly [alias: string, metadata: EntityMetadata])[]): {
  columns: string;
  hydrate: (row: Record<string, unknown>) => (object | null)[];
} {
  const columns = tables
    .flatMap(([alias, metadata]) =>
      metadata.columns.map(
        (column) => `${alias}.${column.databaseName} AS ${alias}_${column.databaseName}`,
      ),
    )
    .join(', ');
  return {
    columns,
    hydrate: (row) =>
      tables.map(([alias, metadata]) => {
        const primary = metadata.primaryColumns[0];
        const id = row[`${alias}_${primary.databaseName}`];
        if (id === null || id === undefined) return null;
        const entity = metadata.create() as object;
        for (const column of metadata.columns) {
          const raw = row[`${alias}_${column.databaseName}`];
          column.setEntityValue(
            entity,
            metadata.connection.driver.prepareHydratedValue(raw, column),
          );
        }
        return entity;
      }),
  };
}
