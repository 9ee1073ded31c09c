import { LRUCache } from 'lru-cache';
import type { FxSnapshot } from '../fx/math/fx-snapshot';
import type { MerchantProfile } from '../merchants/kb/merchant-profile';
import type { NetworkId } from '../networks/network-ids';
import { decideRoute, decisionKey, sharedDecisionKey, toLinkRoutingInput } from '../routing/engine';
import type {
  LinkRoutingInput,
  RoutingDecision,
  RoutingOutcome,
  VisitorContext,
} from '../routing/engine/routing-types';
import type { CreatorEdgeProfile } from './creator-edge-profiles.service';
import type { LinkRoutingRecord } from '../links/link-routing-record';

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
}

/**
 * Routes a click for its visitor (docs/design.md sections 3 and 4): passthrough links go to the
 * original URL byte for byte; a click with no visitor context gets the link's stored route;
 * otherwise the engine decides for the visitor's country and device. Decisions are memoised:
 * visitors share a handful of contexts, and a decision only changes when one of its inputs does.
 */
export class ClickRouter {
  private readonly memo = new LRUCache<string, ClickRoute>({ max: 200_000 });
  /** The engine's input per record, built again only when the merchant or accounts change. */
  private readonly inputs = new WeakMap<LinkRoutingRecord, LinkRoutingInput>();

  route(
    record: LinkRoutingRecord,
    creator: CreatorEdgeProfile,
    visitor: VisitorContext | null,
    merchant: MerchantProfile | null,
    fx: FxSnapshot,
    nowMs: number,
  ): ClickRoute {
    if (record.passthrough) return passthroughRoute(record);
    if (visitor === null) return storedRoute(record);
    const link = this.inputFor(record, merchant, creator);
    // Two memos, both keyed by every input of the decision (decision-key.ts derives the keys
    // from the engine's own input): first by the visitor's exact context, then by what of the
    // visitor the route depends on (many countries share one).
    const exactKey = decisionKey(link, visitor, fx, nowMs);
    const exact = this.memo.get(exactKey);
    if (exact !== undefined) return withRecordMerchant(exact, record);
    const sharedKey = sharedDecisionKey(link, visitor, fx, nowMs);
    const route = this.memo.get(sharedKey) ?? toClickRoute(decideRoute(link, visitor, fx, nowMs));
    this.memo.set(exactKey, route);
    this.memo.set(sharedKey, route);
    return withRecordMerchant(route, record);
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
  ): RoutingDecision['trace'] | null {
    if (record.passthrough || visitor === null) return null;
    return decideRoute(this.inputFor(record, merchant, creator), visitor, fx, nowMs).trace;
  }

  // Reusing the input object is what keeps the key cheap: its link part is computed per object.
  private inputFor(
    record: LinkRoutingRecord,
    merchant: MerchantProfile | null,
    creator: CreatorEdgeProfile,
  ): LinkRoutingInput {
    const cached = this.inputs.get(record);
    if (cached?.merchant === merchant && cached.networkAccounts === creator.affiliateIds) {
      return cached;
    }
    const input = toLinkRoutingInput(record, merchant, creator.affiliateIds);
    this.inputs.set(record, input);
    return input;
  }
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
  };
}
