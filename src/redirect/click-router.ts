import { LRUCache } from 'lru-cache';
import type { FxSnapshot } from '../fx/math/fx-snapshot';
import type { MerchantProfile } from '../merchants/kb/merchant-profile';
import type { NetworkId } from '../networks/network-ids';
import {
  decideRoute,
  DecisionKeys,
  isPinActive,
  toLinkRoutingInput,
  type RouteLearning,
} from '../routing/engine';
import type {
  LinkRoutingInput,
  RoutingDecision,
  RoutingOutcome,
  VisitorContext,
} from '../routing/engine/routing-types';
import type { CreatorEdgeProfile } from './creator-edge-profiles.service';
import type { LinkRoutingRecord } from '../links/link-routing-record';
import { internVisitor } from './visitor-context';

import { subIdUrlPrefixOf } from './sub-id';
/** Where one click goes, and what its click record says about the route. */
export interface ClickRoute {
  url: string;
  outcome: RoutingOutcome;
  merchantId: string | null;
  region: string | null;
  networkId: NetworkId | null;
  normalizedEpcUsd: number;
  confidence: number;
  deepLinkUsed: boolean;
  /** `url` up to the value of the network's sub-id parameter; null: none (sub-id.ts). */
  subIdUrlPrefix: string | null;
}

/**
 * Routes a click for its visitor (docs/design.md sections 3 and 4): passthrough links go to the
 * original URL byte for byte; a click with no visitor context gets the link's stored route;
 * otherwise the engine decides for the visitor's country and device. Decisions are memoised:
 * visitors share a handful of contexts, and a decision only changes when one of its inputs does.
 */
export class ClickRouter {
  /**
   * Decisions by key, for what links share (the same product and accounts, links whose routes
   * were dropped with their record): behind the per-link routes, so it serves few clicks, and
   * is kept small: 50,000 keys (flat strings of a few dozen characters, decision-key.ts) and
   * their routes, a few MiB (200,000 keys built as ropes held ~100 MiB in the million-link
   * bench).
   */
  private readonly memo = new LRUCache<string, ClickRoute>({ max: 50_000 });
  /** The memo's keys, and the tags they are made of: held as long as the memo is. */
  private readonly keys = new DecisionKeys();
  /** The engine's input per record, built again only when the merchant or accounts change. */
  private readonly inputs = new WeakMap<LinkRoutingRecord, LinkRoutingInput>();
  /**
   * A link's routes by visitor, in front of the keyed memo: a click of a link already routed
   * for its (interned) visitor costs two map lookups instead of building two keys. Held per
   * input object, so it goes with the record (or with a merchant or accounts change); reset
   * when the rates or the pin's state change, the decision's other inputs.
   */
  private readonly linkRoutes = new WeakMap<LinkRoutingInput, LinkRoutes>();
  /** Passthrough and stored routes, one object per record (not one per click). */
  private readonly fixedRoutes = new WeakMap<LinkRoutingRecord, ClickRoute>();

  /**
   * `learning` only for a `learned` creator, and `explorationLane` only for its visitors who
   * explore today (explorationLaneOf): their routes are memoised per link, visitor and lane.
   */
  route(
    record: LinkRoutingRecord,
    creator: CreatorEdgeProfile,
    visitor: VisitorContext | null,
    merchant: MerchantProfile | null,
    fx: FxSnapshot,
    nowMs: number,
    learning?: RouteLearning,
    explorationLane: number | null = null,
  ): ClickRoute {
    if (record.passthrough || visitor === null) return this.fixedRouteOf(record);
    const link = this.inputFor(record, merchant, creator, learning);
    const routes = this.routesOf(link, fx, nowMs);
    const interned = internVisitor(visitor);
    if (explorationLane !== null && learning !== undefined) {
      return this.exploredRoute(record, link, routes, interned, explorationLane, fx, nowMs);
    }
    let route = routes.byVisitor.get(interned);
    if (route === undefined) {
      route = withRecordMerchant(this.decide(link, interned, fx, nowMs), record);
      routes.byVisitor.set(interned, route);
    }
    return route;
  }

  /**
   * The engine's full decision (with its trace) for a visitor, from the same input the click
   * path memoises: what a link preview shows beside the route. Not memoised (traces are big
   * and previews rare); null where no decision runs (passthrough, no visitor context).
   */
  trace(
    record: LinkRoutingRecord,
    creator: CreatorEdgeProfile,
    visitor: VisitorContext | null,
    merchant: MerchantProfile | null,
    fx: FxSnapshot,
    nowMs: number,
    learning?: RouteLearning,
  ): RoutingDecision['trace'] | null {
    if (record.passthrough || visitor === null) return null;
    return decideRoute(this.inputFor(record, merchant, creator, learning), visitor, fx, nowMs)
      .trace;
  }

  // Exploring visitors are a few percent of a learned creator's: their routes skip the keyed
  // memo (whose keys name no lane) and are held per link input, visitor and lane.
  private exploredRoute(
    record: LinkRoutingRecord,
    link: LinkRoutingInput,
    routes: LinkRoutes,
    visitor: VisitorContext,
    lane: number,
    fx: FxSnapshot,
    nowMs: number,
  ): ClickRoute {
    routes.explored ??= new Map();
    let byLane = routes.explored.get(visitor);
    if (byLane === undefined) {
      byLane = new Map();
      routes.explored.set(visitor, byLane);
    }
    let route = byLane.get(lane);
    if (route === undefined) {
      route = withRecordMerchant(toClickRoute(decideRoute(link, visitor, fx, nowMs, lane)), record);
      byLane.set(lane, route);
    }
    return route;
  }

  /**
   * Two memos shared by every link, both keyed by every input of the decision (decision-key.ts
   * derives the keys from the engine's own input): first by the visitor's exact context, then
   * by what of the visitor the route depends on (many countries share one).
   */
  private decide(
    link: LinkRoutingInput,
    visitor: VisitorContext,
    fx: FxSnapshot,
    nowMs: number,
  ): ClickRoute {
    const exactKey = this.keys.exact(link, visitor, fx, nowMs);
    const exact = this.memo.get(exactKey);
    if (exact !== undefined) return exact;
    const sharedKey = this.keys.shared(link, visitor, fx, nowMs);
    const route = this.memo.get(sharedKey) ?? toClickRoute(decideRoute(link, visitor, fx, nowMs));
    this.memo.set(exactKey, route);
    this.memo.set(sharedKey, route);
    return route;
  }

  private routesOf(link: LinkRoutingInput, fx: FxSnapshot, nowMs: number): LinkRoutes {
    const isPinActive = pinStateOf(link, nowMs);
    let routes = this.linkRoutes.get(link);
    if (routes === undefined || routes.fx !== fx || routes.isPinActive !== isPinActive) {
      routes = { fx, isPinActive, byVisitor: new Map() };
      this.linkRoutes.set(link, routes);
    }
    return routes;
  }

  private fixedRouteOf(record: LinkRoutingRecord): ClickRoute {
    let route = this.fixedRoutes.get(record);
    if (route === undefined) {
      route = record.passthrough ? passthroughRoute(record) : storedRoute(record);
      this.fixedRoutes.set(record, route);
    }
    return route;
  }

  // Reusing the input object is what keeps the key cheap: its link part is computed per object.
  private inputFor(
    record: LinkRoutingRecord,
    merchant: MerchantProfile | null,
    creator: CreatorEdgeProfile,
    learning: RouteLearning | undefined,
  ): LinkRoutingInput {
    const cached = this.inputs.get(record);
    if (
      cached?.merchant === merchant &&
      cached.networkAccounts === creator.affiliateIds &&
      cached.learning === learning
    ) {
      return cached;
    }
    const input = toLinkRoutingInput(record, merchant, creator.affiliateIds, learning);
    this.inputs.set(record, input);
    return input;
  }
}

/** One link's memoised routes, valid for one FX snapshot object and one state of the pin. */
interface LinkRoutes {
  fx: FxSnapshot;
  isPinActive: boolean | null;
  byVisitor: Map<VisitorContext, ClickRoute>;
  /** Learned routing's exploring visitors: their route per exploration lane. */
  explored?: Map<VisitorContext, Map<number, ClickRoute>>;
}

/** The clock's part in a decision: whether the link's pin holds (null: no pin). */
function pinStateOf(link: LinkRoutingInput, nowMs: number): boolean | null {
  return link.networkOverride === undefined ? null : isPinActive(link.networkOverride, nowMs);
}

function toClickRoute(decision: RoutingDecision): ClickRoute {
  return {
    url: decision.routedUrl,
    outcome: decision.outcome,
    merchantId: decision.merchantId,
    region: decision.region,
    networkId: decision.networkId,
    normalizedEpcUsd: decision.normalizedEpcUsd,
    confidence: decision.confidenceFactor,
    deepLinkUsed: decision.deepLinkUsed,
    subIdUrlPrefix: subIdUrlPrefixOf(decision.routedUrl, decision.networkId),
  };
}

// A merchant missing from the knowledge base leaves the decision without one; the click still
// records the link's. Kept out of the memo, which links with the same inputs share.
function withRecordMerchant(route: ClickRoute, record: LinkRoutingRecord): ClickRoute {
  return route.merchantId !== null || record.merchantId === null
    ? route
    : { ...route, merchantId: record.merchantId };
}

function passthroughRoute(record: LinkRoutingRecord): ClickRoute {
  return {
    url: record.originalUrl,
    outcome: 'passthrough',
    merchantId: record.merchantId,
    region: null,
    networkId: null,
    normalizedEpcUsd: 0,
    confidence: 0,
    deepLinkUsed: false,
    subIdUrlPrefix: null,
  };
}

function storedRoute(record: LinkRoutingRecord): ClickRoute {
  const { stored } = record;
  return {
    url: stored.routedUrl,
    outcome: stored.outcome,
    merchantId: record.merchantId,
    region: stored.region,
    networkId: stored.networkId,
    normalizedEpcUsd: stored.normalizedEpcUsd,
    confidence: stored.confidenceFactor,
    deepLinkUsed: stored.deepLinkUsed,
    subIdUrlPrefix: subIdUrlPrefixOf(stored.routedUrl, stored.networkId),
  };
}
