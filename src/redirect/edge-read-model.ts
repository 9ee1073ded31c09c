import { Injectable } from '@nestjs/common';
import { ClickRecordTemplate } from '../analytics/click-record-codec';
import type { PerClickFields, ClickRecordMessage } from '../analytics/click-record-codec';
import { FxService } from '../fx/fx.service';
import type { FxSnapshot } from '../fx/math/fx-snapshot';
import { destinationRecordOf, LinkDestination } from '../links/link-destination';
import type { LinkRoutingRecord } from '../links/link-routing-record';
import type { MerchantProfile } from '../merchants/kb/merchant-profile';
import { MerchantsService } from '../merchants/merchants.service';
import type { RouteLearning } from '../routing/engine';
import type { RoutingTrace, VisitorContext } from '../routing/engine/routing-types';
import { ClickRoute, ClickRouter } from './click-router';
import { CreatorEdgeProfile, CreatorEdgeProfilesService } from './creator-edge-profiles.service';
import { LinkRecordsService } from './link-records.service';
import { RouteLearningService } from './route-learning.service';

/**
 * A value a warm cache answers at once, or the read of a level below still pending. The edge
 * awaits only a promise: `await` of a plain value still costs every click a turn of the
 * microtask queue.
 */
export type Lookup<T> = T | Promise<T>;

/** What routing a click of a link reads beside the link record. */
export interface EdgeContext {
  creator: CreatorEdgeProfile;
  fx: FxSnapshot;
  /** The creator's realised EPC per route, only when it routes `learned`. */
  learning: RouteLearning | undefined;
}

/**
 * Everything the edge reads to answer a click, and each level it is kept at:
 * - link records: process LRU, then Redis, then PostgreSQL (LinkRecordsService), evicted on
 *   every change of the link;
 * - creator profiles: in process, refreshed from PostgreSQL's change log
 *   (CreatorEdgeProfilesService);
 * - the knowledge base's merchants and the FX snapshot: in process (MerchantsService,
 *   FxService);
 * - realised EPC per creator and environment, for creators routing `learned`
 *   (RouteLearningService);
 * and the memos made from them, each kept as long as the record it was made from: the click
 * router's routes (per record and visitor context), the records of a link's rule and expired
 * destinations, and the click-record templates (per record and route).
 */
@Injectable()
export class EdgeReadModel {
  private readonly router = new ClickRouter();
  /**
   * Per record (dropped with it), per route: the router hands out one route object per link
   * and visitor context, so a record has a handful of routes, and the map stays that small.
   */
  private readonly clickTemplates = new WeakMap<
    LinkRoutingRecord,
    Map<ClickRoute, ClickRecordTemplate>
  >();

  constructor(
    private readonly records: LinkRecordsService,
    private readonly creators: CreatorEdgeProfilesService,
    private readonly merchants: MerchantsService,
    private readonly fx: FxService,
    private readonly learning: RouteLearningService,
  ) {}

  link(linkId: string): Lookup<LinkRoutingRecord | null> {
    return this.records.find(linkId);
  }

  /** The creator, the rates and its learning for routing a click of `record`; null: no creator. */
  contextOf(record: LinkRoutingRecord): Lookup<EdgeContext | null> {
    const creator = this.creators.find(record.creatorId);
    return creator instanceof Promise
      ? creator.then((found) => this.contextWith(record, found))
      : this.contextWith(record, creator);
  }

  /** A rule's or the expired URL's destination, as a record routed like the link's own. */
  destinationOf(record: LinkRoutingRecord, destination: LinkDestination): LinkRoutingRecord {
    return destinationRecordOf(record, destination);
  }

  /** The route of `record` for this visitor (memoised per record and visitor context). */
  route(
    record: LinkRoutingRecord,
    context: EdgeContext,
    visitor: VisitorContext | null,
    nowMs: number,
    explorationLane: number | null = null,
  ): ClickRoute {
    const { creator, fx, learning } = context;
    const merchant = this.merchantOf(record);
    return this.router.route(
      record,
      creator,
      visitor,
      merchant,
      fx,
      nowMs,
      learning,
      explorationLane,
    );
  }

  /** The engine's trace of the same decision (not memoised: previews are rare). */
  trace(
    record: LinkRoutingRecord,
    context: EdgeContext,
    visitor: VisitorContext,
    nowMs: number,
  ): RoutingTrace | null {
    const { creator, fx, learning } = context;
    const merchant = this.merchantOf(record);
    return this.router.trace(record, creator, visitor, merchant, fx, nowMs, learning);
  }

  /**
   * The encoding of what a link's clicks on one route share, made once per record and route
   * (a rule's destination has a record of its own, so its index is one per record).
   */
  clickTemplateOf(
    record: LinkRoutingRecord,
    route: ClickRoute,
    ruleIndex: number | null,
  ): ClickRecordTemplate {
    let byRoute = this.clickTemplates.get(record);
    if (byRoute === undefined) {
      byRoute = new Map();
      this.clickTemplates.set(record, byRoute);
    }
    let template = byRoute.get(route);
    if (template === undefined) {
      template = new ClickRecordTemplate(sharedClickFieldsOf(record, route, ruleIndex));
      byRoute.set(route, template);
    }
    return template;
  }

  private contextWith(
    record: LinkRoutingRecord,
    creator: CreatorEdgeProfile | null,
  ): Lookup<EdgeContext | null> {
    if (creator === null) return null;
    const fx = this.fx.peekSnapshot();
    const learning =
      creator.routingMode === 'learned'
        ? this.learning.find(creator.creatorId, record.environment)
        : undefined;
    if (fx !== null && !(learning instanceof Promise)) return { creator, fx, learning };
    return Promise.all([fx ?? this.fx.getLatestSnapshot(), learning]).then(
      ([snapshot, learned]) => ({ creator, fx: snapshot, learning: learned }),
    );
  }

  private merchantOf(record: LinkRoutingRecord): MerchantProfile | null {
    return record.merchantId === null
      ? null
      : (this.merchants.knowledgeBase.find(record.merchantId) ?? null);
  }
}

/** What every click of a link on one route stores alike (the analytics write side decodes it). */
function sharedClickFieldsOf(
  record: LinkRoutingRecord,
  route: ClickRoute,
  ruleIndex: number | null,
): Omit<ClickRecordMessage, keyof PerClickFields> {
  return {
    linkId: record.linkId,
    creatorId: record.creatorId,
    merchantId: route.merchantId,
    region: route.region,
    networkId: route.networkId,
    preset: record.preset,
    outcome: route.outcome,
    normalizedEpcUsd: route.normalizedEpcUsd,
    confidence: route.confidence,
    deepLinkUsed: route.deepLinkUsed,
    privateDealApplied: false,
    environment: record.environment,
    ruleIndex,
  };
}
