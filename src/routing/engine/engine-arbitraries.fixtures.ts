// fast-check arbitraries and helpers shared by the engine's property specs over seeded
// profiles (the memo keys' specs). Not used by production code.
import * as fc from 'fast-check';
import type { decideRoute } from './decide-route';
import type { VisitorContext } from './routing-types';

/** Seeded merchants of every programme type and most regions. */
export const SEEDED_MERCHANT_IDS = [
  'amazon',
  'asos',
  'aliexpress',
  'apple',
  'ebay',
  'flipkart',
  'noon',
  'shopee',
  'nike',
  'ikea',
];

/** Countries with and without a storefront of their own, and a banned one (IR). */
export const VISITOR_COUNTRIES = [
  'US',
  'GB',
  'DE',
  'FR',
  'IN',
  'JP',
  'BR',
  'MX',
  'AE',
  'SA',
  'EG',
  'NG',
  'ZA',
  'KE',
  'SG',
  'MY',
  'TH',
  'ID',
  'PH',
  'VN',
  'TW',
  'KR',
  'AU',
  'NZ',
  'CA',
  'IE',
  'NL',
  'AR',
  'CL',
  'IR',
];

export const visitorArbitrary: fc.Arbitrary<VisitorContext> = fc.record({
  country: fc.option(fc.constantFrom(...VISITOR_COUNTRIES), { nil: null }),
  device: fc.constantFrom('desktop' as const, 'mobile' as const, 'tablet' as const),
  os: fc.constantFrom('ios' as const, 'android' as const, null),
  isInAppBrowser: fc.boolean(),
});

/** What a click does: the trace's wording aside, everything the edge serves and records. */
export const routeOf = (decision: ReturnType<typeof decideRoute>) => ({
  routedUrl: decision.routedUrl,
  outcome: decision.outcome,
  reason: decision.reason,
  region: decision.region,
  networkId: decision.networkId,
  normalizedEpcUsd: decision.normalizedEpcUsd,
  confidenceFactor: decision.confidenceFactor,
  deepLinkUsed: decision.deepLinkUsed,
});
