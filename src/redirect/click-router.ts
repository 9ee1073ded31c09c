import { LRUCache } from 'lru-cache';
import type { FxSnapshot } from '../fx/math/fx-snapshot';
import type { MerchantProfile } from '../merchants/kb/merchant-profile';
import type { NetworkId } from '../networks/network-ids';
import { decideRoute, visitorRoutingKey } from '../routing/engine';
import type { RoutingOutcome, VisitorContext } from '../routing/engine/routing-types';
import type { CreatorEdgeProfile } from './creator-edge-profiles.service';
import type { LinkRoutingRecord } from './link-routing-record';

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
 * Routes a click for its visitor (DESIGN section 3): passthrough links go to the original URL
 * byte for byte; a click with no visitor context gets the link's stored route; otherwise the
 * engine decides for the visitor's country and device. Decisions are memoised: visitors share
 * a handful of contexts, and a decision only changes when one of its inputs does.
 */
export class ClickRouter {
  private readonly memo = new LRUCache<string, ClickRoute>({ max: 200_000 });

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
    // Two memos, both keyed by every input of the decision (the link's version, the FX rates,
    // the creator's accounts, and the visitor): first by the visitor's exact context (a string
    // join), then by what of the visitor the route depends on (many countries share one).
    // A pin's expiry changes the decision, so whether it still holds is part of the key.
    const base = `${record.linkId}|${record.version}|${pinExpiredSince(record, nowMs)}|${fx.timestamp}|${fx.isStale}|${creator.accountsTag}`;
    const exactKey = `${base}|${visitor.country}|${visitor.device}|${visitor.os}|${visitor.isInAppBrowser}`;
    const exact = this.memo.get(exactKey);
    if (exact !== undefined) return exact;
    const sharedKey = `${base}|${visitorRoutingKey(merchant, record.originalUrl, visitor)}`;
    const shared = this.memo.get(sharedKey);
    const route = shared ?? decide(record, creator, visitor, merchant, fx, nowMs);
    this.memo.set(exactKey, route);
    this.memo.set(sharedKey, route);
    return route;
  }
}

/** Whether the link's network pin has expired (the engine then ignores it). */
function pinExpiredSince(record: LinkRoutingRecord, nowMs: number): boolean {
  const expiresAt = record.networkOverride?.expiresAt;
  return expiresAt !== undefined && Date.parse(expiresAt) <= nowMs;
}

function decide(
  record: LinkRoutingRecord,
  creator: CreatorEdgeProfile,
  visitor: VisitorContext,
  merchant: MerchantProfile | null,
  fx: FxSnapshot,
  nowMs: number,
): ClickRoute {
  const decision = decideRoute(
    {
      originalUrl: record.originalUrl,
      merchant,
      preset: record.preset,
      ...(record.category ? { category: record.category } : {}),
      passthrough: false,
      ...(record.networkOverride ? { networkOverride: record.networkOverride } : {}),
      probes: record.probes,
      networkAccounts: creator.affiliateIds,
      ...(record.utmOverride ? { utmOverride: record.utmOverride } : {}),
    },
    visitor,
    fx,
    nowMs,
  );
  return {
    url: decision.routedUrl,
    outcome: decision.outcome,
    merchantId: decision.merchantId ?? record.merchantId,
    region: decision.region,
    networkId: decision.networkId,
    normalizedEpcUsd: decision.normalizedEpcUsd,
    confidence: decision.confidenceFactor,
    deepLinkUsed: decision.deepLinkUsed,
  };
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
