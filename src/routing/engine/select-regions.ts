import { GLOBAL_REGION, type MerchantProfile } from '../../merchants/kb/merchant-profile';
import {
  explainLowerTier,
  explainPassthroughStorefront,
  explainRegionNotServing,
  NO_CROSS_STOREFRONT_DEEP_LINKS,
} from './explain';
import type { RegionTier, TraceExclusion } from './routing-types';

/** The storefronts a visitor may be routed to, or why there are none. */
export interface RegionSelection {
  market: string;
  /** The tier the usable regions come from; null when no region serves the market. */
  tier: RegionTier | null;
  /** Usable region keys of that tier, in profile order; empty means passthrough. */
  regionKeys: string[];
  /** Regions dropped before scoring, each with its reason. */
  excluded: TraceExclusion[];
  /** Passthrough reason when `regionKeys` is empty. */
  failure: 'no_region_for_market' | 'no_candidates' | 'passthrough_required' | null;
}

/**
 * The market a visitor shops in: their country; with none, the market of the submitted URL's
 * storefront (its region key, GLOBAL included). Null when neither is known.
 */
export function resolveMarket(country: string | null, sourceRegion: string | null): string | null {
  const visitorCountry = country?.trim().toUpperCase() ?? '';
  return visitorCountry !== '' ? visitorCountry : sourceRegion;
}

/**
 * How well a region serves a market: 1 for the region keyed by the market, 2 for another
 * storefront shipping there (or everywhere), 3 for GLOBAL, null when it does not serve it.
 */
export function tierOfRegion(
  merchant: MerchantProfile,
  regionKey: string,
  market: string,
): RegionTier | null {
  if (regionKey === market) {
    return 1;
  }
  if (regionKey === GLOBAL_REGION) {
    return 3;
  }
  const shipsTo = merchant.regions[regionKey].availabilityFlags.shipsToCountries;
  return shipsTo === null || shipsTo.includes(market) ? 2 : null;
}

/**
 * Regions a visitor in `market` may be routed to (docs/design.md section 4, docs/routing.md
 * section 2), first non-empty tier wins:
 * (1) the region keyed by the market, (2) regions shipping there or everywhere (not GLOBAL),
 * (3) GLOBAL. Without cross-storefront deep links only the URL's own region may be used.
 * A tier made only of passthroughRequired storefronts makes the link passthrough; in a tier
 * with others, such storefronts are excluded. The banned-market check comes before this.
 */
export function selectRegions(
  merchant: MerchantProfile,
  market: string,
  sourceRegion: string | null,
): RegionSelection {
  const allKeys = Object.keys(merchant.regions);
  // A storefront move needs deep links across storefronts; an unknown source region cannot
  // restrict anything, so every storefront stays allowed then.
  const isMoveAllowed = (key: string): boolean =>
    merchant.merchantCapabilities.deepLinking || sourceRegion === null || key === sourceRegion;
  const allowedKeys = allKeys.filter(isMoveAllowed);
  const tier = bestTier(merchant, allowedKeys, market);

  const excluded: TraceExclusion[] = [];
  const tierKeys: string[] = [];
  for (const key of allKeys) {
    const regionTier = tierOfRegion(merchant, key, market);
    if (!isMoveAllowed(key)) {
      excluded.push({ region: key, networkId: null, reason: NO_CROSS_STOREFRONT_DEEP_LINKS });
    } else if (regionTier === null) {
      excluded.push({ region: key, networkId: null, reason: explainRegionNotServing(key, market) });
    } else if (regionTier !== tier) {
      excluded.push({
        region: key,
        networkId: null,
        reason: explainLowerTier(key, regionTier, market),
      });
    } else {
      tierKeys.push(key);
    }
  }

  if (tier === null) {
    // Storefronts that would serve the market but are out of reach say why in `excluded`.
    const isServedElsewhere = bestTier(merchant, allKeys, market) !== null;
    return {
      market,
      tier,
      regionKeys: [],
      excluded,
      failure: isServedElsewhere ? 'no_candidates' : 'no_region_for_market',
    };
  }

  const regionKeys = tierKeys.filter((key) => !merchant.regions[key].passthroughRequired);
  if (regionKeys.length === 0) {
    return { market, tier, regionKeys, excluded, failure: 'passthrough_required' };
  }
  for (const key of tierKeys.filter((k) => merchant.regions[k].passthroughRequired)) {
    excluded.push({
      region: key,
      networkId: null,
      reason: explainPassthroughStorefront(key, merchant.regions[key].storefront),
    });
  }
  return { market, tier, regionKeys, excluded, failure: null };
}

function bestTier(
  merchant: MerchantProfile,
  regionKeys: readonly string[],
  market: string,
): RegionTier | null {
  let best: RegionTier | null = null;
  for (const key of regionKeys) {
    const tier = tierOfRegion(merchant, key, market);
    if (tier !== null && (best === null || tier < best)) {
      best = tier;
    }
  }
  return best;
}
