import { canonicaliseUrl } from '../../merchants/kb/canonicalise-url';
import type { MerchantProfile } from '../../merchants/kb/merchant-profile';
import type { VisitorContext } from './routing-types';
import { resolveMarket, selectRegions } from './select-regions';

/**
 * What about a visitor a link's route depends on, as a string: two visitors with the same key
 * get the same route (URL, outcome, region, network, scores; only the trace's wording of the
 * market differs). The country matters only through the storefronts it selects and whether
 * they ship there, so the edge can reuse one decision across many countries. A property test
 * holds this against decideRoute.
 */
export function visitorRoutingKey(
  merchant: MerchantProfile | null,
  originalUrl: string,
  visitor: VisitorContext,
): string {
  const device = `${visitor.device}|${visitor.os}|${visitor.isInAppBrowser}`;
  if (merchant === null) return `none|${device}`;
  let sourceRegion: string | null;
  try {
    sourceRegion = canonicaliseUrl(merchant, originalUrl).region;
  } catch {
    return `invalid|${device}`;
  }
  const market = resolveMarket(visitor.country, sourceRegion);
  if (market === null) return `no-market|${device}`;
  if (merchant.bannedMarkets.includes(market)) return `banned|${device}`;
  const selection = selectRegions(merchant, market, sourceRegion);
  const shipsThere = selection.regionKeys
    .map((key) => {
      const shipsTo = merchant.regions[key].availabilityFlags.shipsToCountries;
      return shipsTo === null || shipsTo.includes(market) ? '1' : '0';
    })
    .join('');
  return `${selection.tier}|${selection.failure}|${selection.regionKeys.join(',')}|${shipsThere}|${device}`;
}
