import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { KeyEnvironment, RecordScope } from '../common/access/auth-context';
import type { VerifiedHost } from './verified-host';

/** A row of `domains` (the domains module owns the table). */
export interface DomainRecord {
  id: string;
  creatorId: string;
  environment: KeyEnvironment;
  hostname: string;
  notFoundUrl: string | null;
  verificationToken: string;
  verifiedAt: Date | null;
  lastCheckedAt: Date | null;
  lastCheckError: string | null;
  createdAt: Date;
}

const COLUMNS = `id, creator_id AS "creatorId", environment, hostname,
  not_found_url AS "notFoundUrl", verification_token AS "verificationToken",
  verified_at AS "verifiedAt", last_checked_at AS "lastCheckedAt",
  last_check_error AS "lastCheckError", created_at AS "createdAt"`;

/** What a check of the DNS challenge found. */
export type CheckOutcome = { isVerified: true } | { isVerified: false; error: string };

/** Every read and write of the API takes the caller's RecordScope, as links do. */
@Injectable()
export class DomainsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts a domain unless the scope holds `maxPerScope` already (null then), under a
   * transaction-scoped advisory lock on the scope, so two creations cannot both take the last
   * place. A hostname the scope has already throws the unique violation (domains_scope_hostname).
   */
  insertWithinLimit(
    record: Omit<DomainRecord, 'verifiedAt' | 'lastCheckedAt' | 'lastCheckError'>,
    maxPerScope: number,
  ): Promise<DomainRecord | null> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
        `domains:${record.creatorId}:${record.environment}`,
      ]);
      const [{ count }] = await manager.query<{ count: string }[]>(
        `SELECT count(*) AS count FROM domains WHERE creator_id = $1 AND environment = $2`,
        [record.creatorId, record.environment],
      );
      if (Number(count) >= maxPerScope) return null;
      const [row] = await manager.query<DomainRecord[]>(
        `INSERT INTO domains
           (id, creator_id, environment, hostname, not_found_url, verification_token, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         RETURNING ${COLUMNS}`,
        [
          record.id,
          record.creatorId,
          record.environment,
          record.hostname,
          record.notFoundUrl,
          record.verificationToken,
          record.createdAt,
        ],
      );
      return row;
    });
  }

  findAllInScope(scope: RecordScope): Promise<DomainRecord[]> {
    return this.dataSource.query<DomainRecord[]>(
      `SELECT ${COLUMNS} FROM domains WHERE creator_id = $1 AND environment = $2
        ORDER BY created_at DESC, id DESC`,
      [scope.creatorId, scope.environment],
    );
  }

  async findInScope(scope: RecordScope, id: string): Promise<DomainRecord | null> {
    const [row] = await this.dataSource.query<DomainRecord[]>(
      `SELECT ${COLUMNS} FROM domains WHERE creator_id = $1 AND environment = $2 AND id = $3`,
      [scope.creatorId, scope.environment, id],
    );
    return row ?? null;
  }

  async findVerifiedInScope(scope: RecordScope, hostname: string): Promise<DomainRecord | null> {
    const [row] = await this.dataSource.query<DomainRecord[]>(
      `SELECT ${COLUMNS} FROM domains
        WHERE creator_id = $1 AND environment = $2 AND hostname = $3 AND verified_at IS NOT NULL`,
      [scope.creatorId, scope.environment, hostname],
    );
    return row ?? null;
  }

  async isVerifiedElsewhere(hostname: string, exceptId: string | null): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM domains WHERE hostname = $1 AND verified_at IS NOT NULL AND id <> $2`,
      [hostname, exceptId ?? ''],
    );
    return rows.length > 0;
  }

  async isVerified(hostname: string): Promise<boolean> {
    return this.isVerifiedElsewhere(hostname, null);
  }

  /** Every verified hostname: what the edge keeps in process (a few per account at most). */
  findAllVerified(): Promise<VerifiedHost[]> {
    return this.dataSource.query<VerifiedHost[]>(
      `SELECT id, hostname, not_found_url AS "notFoundUrl" FROM domains WHERE verified_at IS NOT NULL`,
    );
  }

  /** Unverified domains created after `createdAfter`, least recently checked first. */
  findPendingSince(createdAfter: Date, limit: number): Promise<DomainRecord[]> {
    return this.dataSource.query<DomainRecord[]>(
      `SELECT ${COLUMNS} FROM domains WHERE verified_at IS NULL AND created_at > $1
        ORDER BY last_checked_at ASC NULLS FIRST, id LIMIT $2`,
      [createdAfter, limit],
    );
  }

  /**
   * Records a check. A verification loses to another account's (the partial unique index on
   * verified hostnames): the caller turns the violation into DOMAIN_TAKEN.
   */
  async recordCheck(id: string, outcome: CheckOutcome, at: Date): Promise<DomainRecord> {
    const [rows] = await this.dataSource.query<[DomainRecord[], number]>(
      `UPDATE domains
          SET last_checked_at = $2,
              verified_at = CASE WHEN $3::boolean THEN coalesce(verified_at, $2) ELSE verified_at END,
              last_check_error = $4
        WHERE id = $1
        RETURNING ${COLUMNS}`,
      [id, at, outcome.isVerified, outcome.isVerified ? null : outcome.error],
    );
    return rows[0];
  }

  /**
   * Deletes a domain; its links (soft-deleted ones too) lose their domain and slug and are
   * served on /r/<id> again. Answers the ids of the live links that had it.
   */
  remove(id: string): Promise<string[]> {
    return this.dataSource.transaction(async (manager) => {
      const [rows] = await manager.query<[{ id: string; deleted_at: Date | null }[], number]>(
        `UPDATE links SET domain_id = NULL, domain_hostname = NULL, slug = NULL
          WHERE domain_id = $1 RETURNING id, deleted_at`,
        [id],
      );
      await manager.query(`DELETE FROM domains WHERE id = $1`, [id]);
      return rows.filter((row) => row.deleted_at === null).map((row) => row.id);
    });
  }

  /** The live link holding `slug` on the domain, if any. */
  async findLinkIdBySlug(domainId: string, slug: string): Promise<string | null> {
    const [row] = await this.dataSource.query<{ id: string }[]>(
      `SELECT id FROM links WHERE domain_id = $1 AND slug = $2 AND deleted_at IS NULL`,
      [domainId, slug],
    );
    return row?.id ?? null;
  }
}
