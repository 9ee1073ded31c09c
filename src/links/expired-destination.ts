import type { NetworkId } from '../networks/network-ids';
import type { ProductCategory } from '../merchants/kb/merchant-profile';
import type { RoutingOutcome, RoutingPresetId, UtmOverride } from '../routing/engine/routing-types';
import type { RoutingContext, RoutingService } from '../routing/routing.service';

/**
 * A link's expired URL (docs/edge.md "Expiry and click caps"), canonicalised and routed when it
 * is written, like the link's own URL: the stored route serves visitors without a context, and
 * the edge routes the others by EPC from the same fields (redirect/expired-route.ts).
 */
export interface ExpiredDestination {
  /** As entered, in its WHATWG serialisation. */
  url: string;
  merchantId: string | null;
  /** The merchant imposes passthrough (or is unknown): served byte for byte. */
  passthrough: boolean;
  routedUrl: string;
  region: string | null;
  networkId: NetworkId | null;
  outcome: RoutingOutcome;
  normalizedEpcUsd: number;
  confidenceFactor: number;
  deepLinkUsed: boolean;
}

/** What of the link the expired URL is routed with: its preset, category and UTM override. */
interface RoutedLike {
  preset: RoutingPresetId;
  category: ProductCategory | null;
  utmOverride: UtmOverride | null;
}

/** Routes `url` as a link with the link's settings would be, without its network pin. */
export function routeExpiredUrl(
  routing: RoutingService,
  context: RoutingContext,
  url: string,
  link: RoutedLike,
): ExpiredDestination {
  const { decision } = routing.decideWith(context, {
    originalUrl: url,
    preset: link.preset,
    category: link.category,
    utmOverride: link.utmOverride,
    passthrough: false,
  });
  return {
    url,
    merchantId: decision.merchantId,
    passthrough: decision.outcome === 'passthrough',
    routedUrl: decision.routedUrl,
    region: decision.region,
    networkId: decision.networkId,
    outcome: decision.outcome,
    normalizedEpcUsd: Number(decision.normalizedEpcUsd.toFixed(6)),
    confidenceFactor: Number(decision.confidenceFactor.toFixed(4)),
    deepLinkUsed: decision.deepLinkUsed,
  };
}
