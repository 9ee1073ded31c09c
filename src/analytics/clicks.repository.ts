import type { RecordScope } from '../common/access/auth-context';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository, SelectQueryBuilder } from 'typeorm';
import type { NetworkId } from '../networks/network-ids';
import type { RoutingOutcome, RoutingPresetId } from '../routing/engine/routing-types';
import type { InstantRange } from './analytics-dates';
import { AnalyticsDatabase } from '../database/analytics-database';
import { ClickEntity } from './click.entity';

/** Where a keyset page starts: after this click, in the list's newest-first order. */
export interface ClickPosition {
  clickedAt: Date;
  recordId: string;
}

/** What the click list may be narrowed by; instants come from inclusive days. */
export interface ClickFilter extends InstantRange {
  linkId?: string;
  merchantId?: string;
  networkId?: NetworkId;
  outcome?: RoutingOutcome;
  preset?: RoutingPresetId;
}

/**
 * The clicks table: reads through AnalyticsDatabase (their own pool and slots, never the
 * serving pool's connections), the sandbox purge through the serving pool.
 */
@Injectable()
export class ClicksRepository {
  constructor(
    @InjectRepository(ClickEntity) private readonly clicks: Repository<ClickEntity>,
    private readonly reads: AnalyticsDatabase,
  ) {}

  /**
   * A page of this creator's clicks, newest first (clicked_at, then record id, both
   * descending: the order of clicks_creator_clicked_idx): `offset` rows skipped, or the rows
   * after `after` (a keyset, which costs the same at any depth). The total comes from the
   * rollups: the caller passes it, so a page past the end costs no scan.
   */
  listPageInScope(
    scope: RecordScope,
    filter: ClickFilter,
    position: { offset: number } | { after: ClickPosition },
    limit: number,
  ): Promise<ClickEntity[]> {
    return this.reads.read((source) => {
      const builder = filteredInScope(source, scope, filter);
      if ('after' in position) {
        builder.andWhere('(click.clicked_at, click.record_id) < (:afterAt, :afterId)', {
          afterAt: position.after.clickedAt,
          afterId: position.after.recordId,
        });
      }
      return builder
        .orderBy('click.clicked_at', 'DESC')
        .addOrderBy('click.record_id', 'DESC')
        .offset('offset' in position ? position.offset : 0)
        .limit(limit)
        .getMany();
    });
  }

  /**
   * Removes every click of a test scope (the sandbox reset) and answers how many there were.
   * Refuses a live scope: live clicks are the bill's record.
   */
  async purgeTestScope(scope: RecordScope): Promise<number> {
    if (scope.environment !== 'test') throw new Error('Only test clicks can be purged');
    const result = await this.clicks
      .createQueryBuilder()
      .delete()
      .where(`creator_id = :creatorId AND environment = 'test'`, { creatorId: scope.creatorId })
      .execute();
    return result.affected ?? 0;
  }
}

/** Scoped by creator and environment, always (the sandbox never mixes with live data). */
function filteredInScope(
  source: DataSource,
  scope: RecordScope,
  filter: ClickFilter,
): SelectQueryBuilder<ClickEntity> {
  const builder = source
    .getRepository(ClickEntity)
    .createQueryBuilder('click')
    .where('click.creator_id = :creatorId AND click.environment = :environment', {
      creatorId: scope.creatorId,
      environment: scope.environment,
    });
  if (filter.linkId !== undefined) {
    builder.andWhere('click.link_id = :linkId', { linkId: filter.linkId });
  }
  if (filter.merchantId !== undefined) {
    builder.andWhere('click.merchant_id = :merchantId', { merchantId: filter.merchantId });
  }
  if (filter.networkId !== undefined) {
    builder.andWhere('click.network_id = :networkId', { networkId: filter.networkId });
  }
  if (filter.outcome !== undefined) {
    builder.andWhere('click.outcome = :outcome', { outcome: filter.outcome });
  }
  if (filter.preset !== undefined) {
    builder.andWhere('click.preset = :preset', { preset: filter.preset });
  }
  if (filter.fromInclusive !== undefined) {
    builder.andWhere('click.clicked_at >= :fromInclusive', {
      fromInclusive: filter.fromInclusive,
    });
  }
  if (filter.toExclusive !== undefined) {
    builder.andWhere('click.clicked_at < :toExclusive', { toExclusive: filter.toExclusive });
  }
  return builder;
}
