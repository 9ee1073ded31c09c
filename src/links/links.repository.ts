import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, Repository, SelectQueryBuilder, ValueTransformer } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { ApplyValueTransformers } from 'typeorm/util/ApplyValueTransformers';
import type { KeyEnvironment, RecordScope } from '../common/access/auth-context';
import { normaliseLinkId } from '../common/ids';
import { LinkEntity } from './link.entity';
import { LINK_ROUTING_FIELDS, LinkRoutingFields } from './link-routing-record';
import { ListLinksQuery } from './dto/list-links.query';

/** `%` and `_` are wildcards in ILIKE; a search for "50%_off" means those characters. */
const escapeLike = (term: string): string => term.replace(/[\\%_]/g, (char) => `\\${char}`);

/** One creator's links on a merchant in one environment. */
export interface MerchantLinkCount {
  creatorId: string;
  environment: KeyEnvironment;
  links: number;
}

/** The edge's read of a link's routing columns, built once from the entity's metadata. */
interface RoutingFieldsStatement {
  sql: string;
  /** The fields whose column has a transformer (NUMERIC ones), applied as TypeORM would. */
  transformers: [string, ValueTransformer | ValueTransformer[]][];
}

@Injectable()
export class LinksRepository {
  constructor(@InjectRepository(LinkEntity) private readonly links: Repository<LinkEntity>) {}

  create(fields: Partial<LinkEntity>): LinkEntity {
    return this.links.create(fields);
  }

  async insertAll(links: LinkEntity[]): Promise<LinkEntity[]> {
    // One multi-row INSERT: a bulk request of 100 links is one round trip.
    if (links.length > 0) await this.links.insert(links as QueryDeepPartialEntity<LinkEntity>[]);
    return links;
  }

  /**
   * The live (not soft-deleted) links of these canonical ids, whoever owns them (an unknown or
   * deleted id is simply absent): the edge's read on cache misses, one statement for the misses
   * of an event-loop turn, so only the columns its routing record is made of, in one plain statement (no
   * 2.7 KB routing trace to carry, no entity to build), with the values the entity would hold
   * (column names and transformers from its metadata).
   */
  async findLiveRoutingFields(linkIds: readonly string[]): Promise<LinkRoutingFields[]> {
    const read = (this.routingFieldsRead ??= this.routingFieldsStatement());
    const rows = await this.links.manager.query<Record<string, unknown>[]>(read.sql, [linkIds]);
    for (const row of rows) {
      for (const [field, transformer] of read.transformers) {
        row[field] = ApplyValueTransformers.transformFrom(transformer, row[field]);
      }
    }
    return rows as LinkRoutingFields[];
  }

  private routingFieldsRead?: RoutingFieldsStatement;

  private routingFieldsStatement(): RoutingFieldsStatement {
    const { metadata } = this.links;
    const transformers: RoutingFieldsStatement['transformers'] = [];
    const selected = LINK_ROUTING_FIELDS.map((field) => {
      const column = metadata.findColumnWithPropertyName(field);
      if (column === undefined) throw new Error(`links has no column for ${field}`);
      if (column.transformer !== undefined) transformers.push([field, column.transformer]);
      return `"${column.databaseName}" AS "${field}"`;
    });
    return {
      sql: `SELECT ${selected.join(', ')} FROM links WHERE id = ANY($1::varchar[]) AND deleted_at IS NULL`,
      transformers,
    };
  }

  /**
   * A live (not soft-deleted) link in this scope: another creator's link, or the creator's
   * link of the other environment (live or test), is never found.
   */
  findLiveInScope(scope: RecordScope, typedLinkId: string): Promise<LinkEntity | null> {
    // Any other string names no link (and may hold a NUL PostgreSQL refuses).
    const linkId = normaliseLinkId(typedLinkId);
    if (linkId === null) return Promise.resolve(null);
    return this.scoped(scope)
      .andWhere('link.id = :linkId AND link.deleted_at IS NULL', { linkId })
      .getOne();
  }

  /** Newest first; createdAfter/createdBefore are exclusive (docs/design.md section 2). */
  async listLiveInScope(
    scope: RecordScope,
    query: ListLinksQuery,
    page: number,
    limit: number,
  ): Promise<{ links: LinkEntity[]; total: number }> {
    const builder = this.scoped(scope).andWhere('link.deleted_at IS NULL');
    if (query.merchantId !== undefined) {
      builder.andWhere('link.merchant_id = :merchantId', { merchantId: query.merchantId });
    }
    if (query.networkId !== undefined) {
      // A passthrough link serves no network (its stored route waits for later): no match.
      builder.andWhere('link.network_id = :networkId AND link.passthrough_enabled = false', {
        networkId: query.networkId,
      });
    }
    if (query.preset !== undefined)
      builder.andWhere('link.preset = :preset', { preset: query.preset });
    if (query.groupId !== undefined) {
      builder.andWhere('link.group_id = :groupId', { groupId: query.groupId });
    }
    if (query.createdAfter !== undefined) {
      builder.andWhere('link.created_at > :createdAfter', {
        createdAfter: new Date(query.createdAfter),
      });
    }
    if (query.createdBefore !== undefined) {
      builder.andWhere('link.created_at < :createdBefore', {
        createdBefore: new Date(query.createdBefore),
      });
    }
    if (query.passthrough !== undefined) {
      builder.andWhere('link.passthrough_enabled = :passthrough', {
        passthrough: query.passthrough,
      });
    }
    if (query.search !== undefined && query.search !== '') {
      const pattern = `%${escapeLike(query.search)}%`;
      builder.andWhere(
        new Brackets((where) =>
          where
            .where('link.title ILIKE :pattern', { pattern })
            .orWhere('link.original_url ILIKE :pattern', { pattern }),
        ),
      );
    }
    const [links, total] = await builder
      .orderBy('link.created_at', 'DESC')
      .addOrderBy('link.id', 'DESC')
      .skip((page - 1) * limit)
      .take(limit)
      .getManyAndCount();
    return { links, total };
  }

  /** The live link holding `slug` on a branded domain, whoever owns it. */
  async findLiveIdBySlug(domainId: string, slug: string): Promise<string | null> {
    const row = await this.links
      .createQueryBuilder('link')
      .select('link.id', 'id')
      .where('link.domain_id = :domainId AND link.slug = :slug AND link.deleted_at IS NULL', {
        domainId,
        slug,
      })
      .getRawOne<{ id: string }>();
    return row?.id ?? null;
  }

  async save(link: LinkEntity): Promise<LinkEntity> {
    return this.links.save(link);
  }

  /**
   * Removes every link of a test scope for good (the sandbox reset), soft-deleted ones
   * included, and answers their ids. Refuses a live scope: live links are only soft-deleted.
   */
  async purgeTestScope(scope: RecordScope): Promise<string[]> {
    if (scope.environment !== 'test') throw new Error('Only test links can be purged');
    const result = await this.links
      .createQueryBuilder()
      .delete()
      .where(`creator_id = :creatorId AND environment = 'test'`, { creatorId: scope.creatorId })
      .returning('id')
      .execute();
    return (result.raw as { id: string }[]).map((row) => row.id);
  }

  /** The one place a scoped read starts: creator and environment, both always. */
  private scoped(scope: RecordScope): SelectQueryBuilder<LinkEntity> {
    return this.links
      .createQueryBuilder('link')
      .where('link.creator_id = :creatorId AND link.environment = :environment', {
        creatorId: scope.creatorId,
        environment: scope.environment,
      });
  }

  /** Creators and environments with links (not deleted) on a merchant, and how many each. */
  async countActiveByMerchant(merchantId: string): Promise<MerchantLinkCount[]> {
    const rows = await this.links.manager.query<
      (Omit<MerchantLinkCount, 'links'> & { links: string })[]
    >(
      `SELECT creator_id AS "creatorId", environment, count(*) AS links FROM links
        WHERE merchant_id = $1 AND deleted_at IS NULL
        GROUP BY creator_id, environment
        ORDER BY creator_id, environment`,
      [merchantId],
    );
    return rows.map((row) => ({ ...row, links: Number(row.links) }));
  }
}
