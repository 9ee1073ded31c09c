import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { managerOf, Transaction } from '../database/transaction';
import type { KeyEnvironment, RecordScope } from '../common/access/auth-context';

/** A row of `webhook_endpoints` (the webhooks module owns the table). */
export interface WebhookEndpointRecord {
  id: string;
  creatorId: string;
  environment: KeyEnvironment;
  url: string;
  events: string[];
  description: string | null;
  allowedOrigins: string[];
  isEnabled: boolean;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An endpoint's stored secrets, as the encryption-key rotation reads and rewrites them. */
export interface StoredSecrets {
  id: string;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
}

/** The fields PATCH may change. */
export interface WebhookEndpointChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  allowedOrigins?: string[];
  isEnabled?: boolean;
}

const COLUMNS = `id, creator_id AS "creatorId", environment, url, events, description,
  allowed_origins AS "allowedOrigins", is_enabled AS "isEnabled",
  secret_ciphertext AS "secretCiphertext",
  previous_secret_ciphertext AS "previousSecretCiphertext",
  previous_secret_expires_at AS "previousSecretExpiresAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

const CHANGE_COLUMNS: Record<keyof WebhookEndpointChanges, string> = {
  url: 'url',
  events: 'events',
  description: 'description',
  allowedOrigins: 'allowed_origins',
  isEnabled: 'is_enabled',
};

/** Every read and write takes the caller's RecordScope, as links do. */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts an endpoint unless the scope already holds `maxPerScope`; null when it does. The
   * count and the insert run under a transaction-scoped advisory lock on the scope, so two
   * concurrent creations cannot both take the last place.
   */
  insertWithinLimit(
    record: Omit<WebhookEndpointRecord, 'updatedAt'>,
    maxPerScope: number,
  ): Promise<WebhookEndpointRecord | null> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
        `webhook_endpoints:${record.creatorId}:${record.environment}`,
      ]);
      const [{ count }] = await manager.query<{ count: string }[]>(
        `SELECT count(*) AS count FROM webhook_endpoints
          WHERE creator_id = $1 AND environment = $2 AND deleted_at IS NULL`,
        [record.creatorId, record.environment],
      );
      if (Number(count) >= maxPerScope) return null;
      const [row] = await manager.query<WebhookEndpointRecord[]>(
        `INSERT INTO webhook_endpoints
           (id, creator_id, environment, url, events, description, allowed_origins, is_enabled,
            secret_ciphertext, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
         RETURNING ${COLUMNS}`,
        [
          record.id,
          record.creatorId,
          record.environment,
          record.url,
          record.events,
          record.description,
          record.allowedOrigins,
          record.isEnabled,
          record.secretCiphertext,
          record.createdAt,
        ],
      );
      return row;
    });
  }

  findAllInScope(scope: RecordScope): Promise<WebhookEndpointRecord[]> {
    return this.dataSource.query<WebhookEndpointRecord[]>(
      `SELECT ${COLUMNS} FROM webhook_endpoints
        WHERE creator_id = $1 AND environment = $2 AND deleted_at IS NULL
        ORDER BY created_at DESC, id DESC`,
      [scope.creatorId, scope.environment],
    );
  }

  async findInScope(scope: RecordScope, id: string): Promise<WebhookEndpointRecord | null> {
    const [row] = await this.dataSource.query<WebhookEndpointRecord[]>(
      `SELECT ${COLUMNS} FROM webhook_endpoints
        WHERE id = $1 AND creator_id = $2 AND environment = $3 AND deleted_at IS NULL`,
      [id, scope.creatorId, scope.environment],
    );
    return row ?? null;
  }

  async updateInScope(
    scope: RecordScope,
    id: string,
    changes: WebhookEndpointChanges,
    now: Date,
  ): Promise<WebhookEndpointRecord | null> {
    const values: unknown[] = [id, scope.creatorId, scope.environment, now];
    const sets = ['updated_at = $4'];
    for (const [field, column] of Object.entries(CHANGE_COLUMNS)) {
      const value = changes[field as keyof WebhookEndpointChanges];
      if (value === undefined) continue;
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    }
    const [rows] = await this.dataSource.query<[WebhookEndpointRecord[], number]>(
      `UPDATE webhook_endpoints SET ${sets.join(', ')}
        WHERE id = $1 AND creator_id = $2 AND environment = $3 AND deleted_at IS NULL
        RETURNING ${COLUMNS}`,
      values,
    );
    return rows[0] ?? null;
  }

  /** The new secret signs from now on; the previous one beside it until `previousExpiresAt`. */
  async rotateSecretInScope(
    scope: RecordScope,
    id: string,
    secretCiphertext: string,
    previousExpiresAt: Date,
    now: Date,
  ): Promise<WebhookEndpointRecord | null> {
    const [rows] = await this.dataSource.query<[WebhookEndpointRecord[], number]>(
      `UPDATE webhook_endpoints
          SET previous_secret_ciphertext = secret_ciphertext,
              previous_secret_expires_at = $4,
              secret_ciphertext = $5, updated_at = $6
        WHERE id = $1 AND creator_id = $2 AND environment = $3 AND deleted_at IS NULL
        RETURNING ${COLUMNS}`,
      [id, scope.creatorId, scope.environment, previousExpiresAt, secretCiphertext, now],
    );
    return rows[0] ?? null;
  }

  async softDeleteInScope(scope: RecordScope, id: string, now: Date): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE webhook_endpoints SET deleted_at = $4
        WHERE id = $1 AND creator_id = $2 AND environment = $3 AND deleted_at IS NULL`,
      [id, scope.creatorId, scope.environment, now],
    );
    return count > 0;
  }

  /**
   * Endpoints, deleted ones included (their rows keep their ciphertexts), with a stored secret
   * that does not start with `prefix`, in id order after `afterId`.
   */
  findSecretsNotUnder(prefix: string, afterId: string, limit: number): Promise<StoredSecrets[]> {
    return this.dataSource.query<StoredSecrets[]>(
      `SELECT id, secret_ciphertext AS "secretCiphertext",
              previous_secret_ciphertext AS "previousSecretCiphertext"
         FROM webhook_endpoints
        WHERE id > $2 AND (NOT starts_with(secret_ciphertext, $1)
                           OR NOT starts_with(COALESCE(previous_secret_ciphertext, $1), $1))
        ORDER BY id
        LIMIT $3`,
      [prefix, afterId, limit],
    );
  }

  async countSecretsNotUnder(prefix: string): Promise<number> {
    const [{ count }] = await this.dataSource.query<{ count: string }[]>(
      `SELECT count(*) AS count FROM webhook_endpoints
        WHERE NOT starts_with(secret_ciphertext, $1)
           OR NOT starts_with(COALESCE(previous_secret_ciphertext, $1), $1)`,
      [prefix],
    );
    return Number(count);
  }

  /**
   * Writes re-encrypted secrets unless the row changed since `read` (a secret rotated through
   * the API meanwhile): false then, and the row is left as the API wrote it.
   */
  async replaceSecrets(read: StoredSecrets, next: Omit<StoredSecrets, 'id'>): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE webhook_endpoints
          SET secret_ciphertext = $2, previous_secret_ciphertext = $3
        WHERE id = $1 AND secret_ciphertext = $4
          AND previous_secret_ciphertext IS NOT DISTINCT FROM $5`,
      [
        read.id,
        next.secretCiphertext,
        next.previousSecretCiphertext,
        read.secretCiphertext,
        read.previousSecretCiphertext,
      ],
    );
    return count > 0;
  }

  /** Every enabled endpoint's declared browser origins (CORS), each with its creator. */
  findDeclaredOrigins(): Promise<{ origin: string; creatorId: string }[]> {
    return this.dataSource.query<{ origin: string; creatorId: string }[]>(
      `SELECT DISTINCT unnest(allowed_origins) AS origin, creator_id AS "creatorId"
         FROM webhook_endpoints
        WHERE deleted_at IS NULL AND is_enabled`,
    );
  }

  /** The worker's read: deleted and disabled endpoints included, so it can settle them. */
  async findByIdsWithDeleted(
    ids: string[],
  ): Promise<(WebhookEndpointRecord & { isDeleted: boolean })[]> {
    if (ids.length === 0) return [];
    return this.dataSource.query(
      `SELECT ${COLUMNS}, deleted_at IS NOT NULL AS "isDeleted" FROM webhook_endpoints
        WHERE id = ANY($1)`,
      [ids],
    );
  }

  /** Enabled endpoints of the scope subscribed to `type` (the fan-out of one event). */
  findSubscribed(
    transaction: Transaction,
    scope: RecordScope,
    type: string,
  ): Promise<{ id: string }[]> {
    return managerOf(transaction).query<{ id: string }[]>(
      `SELECT id FROM webhook_endpoints
        WHERE creator_id = $1 AND environment = $2 AND deleted_at IS NULL AND is_enabled
          AND $3 = ANY(events)
        ORDER BY id`,
      [scope.creatorId, scope.environment, type],
    );
  }
}
