import * as fc from 'fast-check';
import { decideRoute } from './decide-route';
import {
  ALL_NETWORK_ACCOUNTS,
  fxSnapshot,
  linkInput,
  NOW_MS,
  seedProfile,
  visitorContext,
} from './engine.fixtures';
import {
  routeOf,
  SEEDED_MERCHANT_IDS,
  VISITOR_COUNTRIES,
  visitorArbitrary,
} from './engine-arbitraries.fixtures';
import type { VisitorContext } from './routing-types';
import { visitorRoutingKey } from './visitor-routing-key';

describe(visitorRoutingKey.name, () => {
  it('should give the same route to any two visitors with the same key', () => {
    let sharedAcrossCountries = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...SEEDED_MERCHANT_IDS),
        fc.nat(),
        visitorArbitrary,
        fc.option(fc.constantFrom(...VISITOR_COUNTRIES), { nil: null }),
        (merchantId, n, visitor, otherCountry) => {
          const merchant = seedProfile(merchantId);
          const examples = merchant.canonicalization.examples;
          const url = examples[n % examples.length].input;
          const link = linkInput(merchant, url, { networkAccounts: { ...ALL_NETWORK_ACCOUNTS } });
          const first: VisitorContext = visitorContext(visitor);
          // Same device, other country: the case where a shared key saves a decision.
          const second: VisitorContext = { ...first, country: otherCountry };
          fc.pre(
            visitorRoutingKey(merchant, url, first) === visitorRoutingKey(merchant, url, second),
          );
          if (first.country !== second.country) sharedAcrossCountries++;
          expect(routeOf(decideRoute(link, second, fxSnapshot(), NOW_MS))).toEqual(
            routeOf(decideRoute(link, first, fxSnapshot(), NOW_MS)),
          );
        },
      ),
      { numRuns: 3000, maxSkipsPerRun: 1000 },
    );
    // The key is worth having only if countries share it; this also shows the test is not vacuous.
    expect(sharedAcrossCountries).toBeGreaterThan(100);
  });

  it('should tell apart visitors whose routes differ', () => {
    const amazon = seedProfile('amazon');
    const url = 'https://www.amazon.com/dp/B0BDHWDR12';
    const us = visitorRoutingKey(amazon, url, visitorContext({ country: 'US' }));
    const india = visitorRoutingKey(amazon, url, visitorContext({ country: 'IN' }));
    const iphone = visitorRoutingKey(
      amazon,
      url,
      visitorContext({ country: 'US', device: 'mobile', os: 'ios' }),
    );
    expect(new Set([us, india, iphone]).size).toBe(3);
  });
});
