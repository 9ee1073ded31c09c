import type { FxSnapshot } from '../../fx/math/fx-snapshot';
import { canonicaliseUrl, type CanonicalisedUrl } from '../../merchants/kb/canonicalise-url';
import { buildRoutedUrl } from './build-routed-url';
import { buildPassthroughTrace, buildRoutingTrace } from './build-routing-trace';
import { listCandidates } from './list-candidates';
import { pickWinner, type WinnerChoice } from './pick-winner';
import { PRESET_WEIGHTS } from './presets';
import type {
  FallbackReason,
  LinkRoutingInput,
  PassthroughReason,
  RegionTier,
  RoutedReason,
  RoutingDecision,
  RoutingOutcome,
  TraceExclusion,
  VisitorContext,
} from './routing-types';
import { scoreCandidates } from './score-candidates';
import { resolveMarket, selectRegions } from './select-regions';

/**
 * Decides where one visitor's click on one link goes (docs/design.md section 4): passthrough (the
 * original URL, byte for byte), or the best (storefront, network) route with tracking and UTM
 * parameters, `routed` on the visitor's own storefront and `fallback` otherwise. Pure and
 * deterministic: the clock comes in as `nowMs` (for the pin's expiry); never throws for a
 * routing outcome. With `link.learning` (the creator routes `learned`), candidates are scored
 * on their blended EPC, and a visitor with an `explorationLane` (explorationLaneOf, from a draw
 * fixed per visitor, link and day) gets the other route that lane names.
 */
export function decideRoute(
  link: LinkRoutingInput,
  visitor: VisitorContext,
  fx: FxSnapshot,
  nowMs: number,
  explorationLane: number | null = null,
): RoutingDecision {
  const { merchant } = link;
  const passthrough = passthroughFactory(link);
  if (link.passthrough) {
    return passthrough('passthrough_requested');
  }
  if (merchant === null) {
    return passthrough('unsupported_merchant');
  }
  if (merchant.programStatus === 'closed') {
    return passthrough('programme_closed');
  }
  const canonical = tryCanonicalise(link);
  if (canonical === null) {
    return passthrough('invalid_url');
  }
  const sourceRegion = canonical.region;
  // The merchant forbids canonicalising or re-routing links of this storefront.
  if (sourceRegion !== null && merchant.regions[sourceRegion].passthroughRequired) {
    return passthrough('passthrough_required');
  }

  const market = resolveMarket(visitor.country, sourceRegion);
  if (market === null) {
    return passthrough('no_region_for_market');
  }
  if (merchant.bannedMarkets.includes(market)) {
    return passthrough('banned_market', { market });
  }
  const selection = selectRegions(merchant, market, sourceRegion);
  if (selection.failure !== null || selection.tier === null) {
    return passthrough(selection.failure ?? 'no_region_for_market', {
      market,
      excluded: selection.excluded,
    });
  }

  const list = listCandidates(
    merchant,
    selection.regionKeys,
    selection.tier,
    link.networkAccounts,
    fx,
  );
  const excluded = [...selection.excluded, ...list.excluded];
  if (list.failure !== null) {
    return passthrough(list.failure, { market, excluded });
  }

  const { learning } = link;
  const ranked = scoreCandidates(
    list.candidates,
    {
      merchant,
      market,
      category: link.category,
      deepLinkStatus: link.probes.deepLinkStatus,
      healthStatus: link.probes.healthStatus,
      visitor,
      fx,
      weights: PRESET_WEIGHTS[link.preset],
    },
    learning,
  );
  const choice = pickWinner(
    ranked,
    link.networkOverride,
    nowMs,
    learning === undefined ? null : explorationLane,
  );
  const { winner } = choice;
  const { outcome, reason } = classify(selection.tier, choice);
  const { routedUrl, deepLinkUsed } = buildRoutedUrl({
    canonicalUrl: canonical.canonicalUrl,
    sourceRegion,
    targetRegion: winner.regionKey,
    targetStorefront: winner.region.storefront,
    targetDeepLinkSupported: winner.region.deepLinkSupported,
    networkId: winner.networkId,
    affiliateId: winner.affiliateId,
    preset: link.preset,
    utmOverride: link.utmOverride,
  });

  return {
    outcome,
    reason,
    merchantId: merchant.merchantId,
    region: winner.regionKey,
    networkId: winner.networkId,
    routedUrl,
    canonicalUrl: canonical.canonicalUrl,
    normalizedEpcUsd: winner.intermediateScore,
    confidenceFactor: winner.confidence.factor,
    deepLinkUsed,
    trace: buildRoutingTrace({
      merchantId: merchant.merchantId,
      choice,
      excluded,
      preset: link.preset,
      market,
      regionTier: selection.tier,
      ...(learning === undefined
        ? {}
        : {
            learning: {
              priorClicks: learning.priorClicks,
              explorationShare: learning.explorationShare,
            },
          }),
    }),
  };
}

// An unusable pin outranks a missing own storefront as the reason: the creator asked for it.
function classify(
  tier: RegionTier,
  choice: WinnerChoice,
): { outcome: RoutingOutcome; reason: FallbackReason | RoutedReason } {
  if (choice.networkOverride?.status === 'unavailable') {
    return { outcome: 'fallback', reason: 'network_override_unavailable' };
  }
  if (tier !== 1) {
    return { outcome: 'fallback', reason: 'visitor_region_missing' };
  }
  return {
    outcome: 'routed',
    reason: choice.networkOverride?.status === 'applied' ? 'network_override' : 'best_epc',
  };
}

function tryCanonicalise(link: LinkRoutingInput): CanonicalisedUrl | null {
  if (link.merchant === null) {
    return null;
  }
  try {
    return canonicaliseUrl(link.merchant, link.originalUrl);
  } catch {
    // canonicaliseUrl throws only for an unparsable URL or a non-http(s) scheme.
    return null;
  }
}

type Passthrough = (
  reason: PassthroughReason,
  context?: { market?: string; excluded?: TraceExclusion[] },
) => RoutingDecision;

// Passthrough: the original URL exactly, no canonical URL, no network, no UTM.
function passthroughFactory(link: LinkRoutingInput): Passthrough {
  return (reason, context = {}) => ({
    outcome: 'passthrough',
    reason,
    merchantId: link.merchant?.merchantId ?? null,
    region: null,
    networkId: null,
    routedUrl: link.originalUrl,
    canonicalUrl: '',
    normalizedEpcUsd: 0,
    confidenceFactor: 0,
    deepLinkUsed: false,
    trace: buildPassthroughTrace(link.preset, context),
  });
}
