import fc from 'fast-check';
import type { CurrencyCode, FxSnapshot } from '../../fx/math/fx-snapshot';
import type {
  MerchantProfile,
  MerchantRegion,
  NetworkId,
  ProductCategory,
} from '../../merchants/kb/merchant-profile';
import { CONFIDENCE_MAX, CONFIDENCE_MIN } from './confidence';
import { decideRoute } from './decide-route';
import { buildProfile, buildRegion, fxSnapshot, NOW_MS } from './engine.fixtures';
import { PRESET_WEIGHTS } from './presets';
import {
  ROUTING_PRESET_IDS,
  type LinkRoutingInput,
  type RegionTier,
  type RoutingDecision,
  type VisitorContext,
} from './routing-types';

const NETWORKS = ['awin', 'cj', 'impact', 'partnerize'] as const;
const REGION_KEYS = ['US', 'GB', 'DE', 'IN', 'GLOBAL'] as const;
const COUNTRIES = ['US', 'GB', 'DE', 'IN', 'NZ', 'KE'] as const;
const CURRENCIES: readonly CurrencyCode[] = ['USD', 'EUR', 'INR', 'JPY'];

const storefrontOf = (key: string): string => `shop-${key.toLowerCase()}.example`;

// Mostly usable hints, with enough zeros to exercise the exclusion.
const hint = fc.oneof(
  { arbitrary: fc.constant(0), weight: 1 },
  { arbitrary: fc.double({ min: 0.001, max: 50, noNaN: true }), weight: 3 },
);
const rarely = fc.oneof({ arbitrary: fc.constant(false), weight: 7 }, fc.constant(true));
const bias = fc.double({ min: -0.05, max: 0.1, noNaN: true });

function regionArbitrary(key: string): fc.Arbitrary<MerchantRegion> {
  return fc
    .record({
      epcHints: fc.record({ awin: hint, cj: hint, impact: hint, partnerize: hint }),
      baseCurrency: fc.constantFrom(...CURRENCIES),
      trustScore: fc.integer({ min: 0, max: 100 }),
      preferredNetworks: fc.shuffledSubarray([...NETWORKS]),
      deepLinkSupported: fc.boolean(),
      deepLinkMultiplier: fc.double({ min: 0, max: 0.12, noNaN: true }),
      deviceBiases: fc.record({ ios: bias, android: bias, desktop: bias }),
      shipsTo: fc.option(fc.subarray([...COUNTRIES]), { nil: null }),
      fashion: fc.option(fc.double({ min: 0.5, max: 1.5, noNaN: true }), { nil: undefined }),
      refundRateEstimate: fc.double({ min: 0, max: 0.5, noNaN: true }),
      codFactor: fc.double({ min: 0.5, max: 1, noNaN: true }),
      passthroughRequired: rarely,
    })
    .map(({ shipsTo, fashion, ...region }) =>
      buildRegion(storefrontOf(key), {
        ...region,
        categoryMultipliers: fashion === undefined ? {} : { fashion },
        availabilityFlags: {
          globalAvailability: false,
          stockAware: false,
          shipsToCountries: shipsTo,
        },
      }),
    );
}

const merchantArbitrary: fc.Arbitrary<MerchantProfile> = fc
  .record({
    keys: fc.subarray([...REGION_KEYS], { minLength: 1 }),
    supportedNetworks: fc.subarray([...NETWORKS], { minLength: 1 }),
    deepLinking: fc.boolean(),
    utmPreservation: fc.boolean(),
    dataConfidenceScore: fc.integer({ min: 70, max: 100 }),
  })
  .chain(({ keys, supportedNetworks, deepLinking, utmPreservation, dataConfidenceScore }) =>
    fc.tuple(...keys.map((key) => regionArbitrary(key))).map((regions) => {
      const base = buildProfile(Object.fromEntries(keys.map((key, i) => [key, regions[i]])));
      return {
        ...base,
        supportedNetworks,
        merchantCapabilities: { ...base.merchantCapabilities, deepLinking, utmPreservation },
        meta: { ...base.meta, dataConfidenceScore },
      };
    }),
  );

const visitorArbitrary: fc.Arbitrary<VisitorContext> = fc.record({
  country: fc.constantFrom(null, ...COUNTRIES),
  device: fc.constantFrom('desktop', 'mobile', 'tablet'),
  os: fc.constantFrom(null, 'ios', 'android'),
  isInAppBrowser: fc.boolean(),
});

const fxArbitrary: fc.Arbitrary<FxSnapshot> = fc
  .record({ isStale: fc.boolean(), source: fc.constantFrom('primary', 'fallback', 'snapshot') })
  .map((overrides) => fxSnapshot(overrides));

interface World {
  link: LinkRoutingInput;
  visitor: VisitorContext;
  fx: FxSnapshot;
  nowMs: number;
}

const worldArbitrary: fc.Arbitrary<World> = merchantArbitrary.chain((merchant) =>
  fc.record({
    link: fc.record({
      originalUrl: fc
        .constantFrom(...Object.keys(merchant.regions))
        .map((key) => `https://${storefrontOf(key)}/p/123?colour=red&utm_source=old`),
      merchant: fc.constant(merchant),
      preset: fc.constantFrom(...ROUTING_PRESET_IDS),
      category: fc.constantFrom<ProductCategory | undefined>(undefined, 'fashion', 'books'),
      passthrough: rarely,
      networkOverride: fc.option(
        fc.record(
          {
            networkId: fc.constantFrom<NetworkId>(...NETWORKS),
            expiresAt: fc.constantFrom('2026-06-01T00:00:00Z', '2027-06-01T00:00:00Z'),
          },
          { requiredKeys: ['networkId'] },
        ),
        { nil: undefined },
      ),
      probes: fc.record({
        deepLinkStatus: fc.constantFrom('validated', 'unchecked', 'invalid', 'ttl_expired'),
        healthStatus: fc.constantFrom('ok', 'warning', 'critical', 'unknown'),
      }),
      networkAccounts: fc
        .oneof(
          { arbitrary: fc.constant([...NETWORKS]), weight: 2 },
          { arbitrary: fc.subarray([...NETWORKS]), weight: 1 },
        )
        .map((ids) => Object.fromEntries(ids.map((id) => [id, `acct-${id}`]))),
      utmOverride: fc.option(
        fc.record({ utm_campaign: fc.string({ maxLength: 20 }) }, { requiredKeys: [] }),
        { nil: undefined },
      ),
    }),
    visitor: visitorArbitrary,
    fx: fxArbitrary,
    nowMs: fc.constant(NOW_MS),
  }),
);

function routesOf(decision: RoutingDecision): { region: string; networkId: NetworkId }[] {
  const { winner, alternatives } = decision.trace;
  return winner === null ? [] : [winner, ...alternatives];
}

// An independent reading of the multipliers of docs/routing.md section 4, as a test oracle.
function expectedMultiplierProduct(
  world: World,
  region: MerchantRegion,
  tier: RegionTier,
  market: string,
): number {
  const { link, visitor } = world;
  const weights = PRESET_WEIGHTS[link.preset];
  const biases = region.deviceBiases;
  const deviceBias =
    visitor.device === 'desktop'
      ? biases.desktop
      : visitor.os === null
        ? (biases.ios + biases.android) / 2
        : biases[visitor.os];
  const shipsTo = region.availabilityFlags.shipsToCountries;
  const factors: [number, number][] = [
    [1 + deviceBias, weights.device],
    [
      region.deepLinkSupported && link.probes.deepLinkStatus === 'validated'
        ? 1 + region.deepLinkMultiplier
        : 1,
      weights.deeplink,
    ],
    [{ 1: 1, 2: 0.97, 3: 0.93 }[tier], weights.region_match],
    [{ ok: 1, unknown: 1, warning: 0.95, critical: 0.8 }[link.probes.healthStatus], weights.health],
    [1 - region.refundRateEstimate, weights.refund],
    [0.85 + (0.15 * region.trustScore) / 100, weights.net_trust],
    [(link.category && region.categoryMultipliers[link.category]) ?? 1, weights.category],
    [region.codFactor, weights.cod],
    [visitor.isInAppBrowser ? 0.95 : 1, weights.ua_penalty],
    [link.merchant?.merchantCapabilities.utmPreservation ? 1 : 0.98, weights.utm],
    [shipsTo === null || shipsTo.includes(market) ? 1 : 0.9, weights.availability],
  ];
  return factors.reduce((product, [value, weight]) => product * value ** weight, 1);
}

describe(`${decideRoute.name} properties`, () => {
  it('should never route through, or even score, a network whose hint is 0', () => {
    fc.assert(
      fc.property(worldArbitrary, ({ link, visitor, fx, nowMs }) => {
        const decision = decideRoute(link, visitor, fx, nowMs);
        for (const route of routesOf(decision)) {
          expect(link.merchant?.regions[route.region].epcHints[route.networkId]).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('should give the same decision for the same inputs', () => {
    fc.assert(
      fc.property(worldArbitrary, (world) => {
        const first = decideRoute(world.link, world.visitor, world.fx, world.nowMs);
        const copy = structuredClone(world);
        const second = decideRoute(copy.link, copy.visitor, copy.fx, copy.nowMs);
        expect(second).toEqual(first);
        expect(copy).toEqual(world);
      }),
      { numRuns: 300 },
    );
  });

  it('should serve the original URL untouched on every passthrough', () => {
    fc.assert(
      fc.property(worldArbitrary, ({ link, visitor, fx, nowMs }) => {
        const decision = decideRoute(link, visitor, fx, nowMs);
        fc.pre(decision.outcome === 'passthrough');
        expect(decision).toMatchObject({
          routedUrl: link.originalUrl,
          canonicalUrl: '',
          networkId: null,
          region: null,
        });
      }),
      { numRuns: 300 },
    );
  });

  it('should keep every routed and fallback decision well formed', () => {
    fc.assert(
      fc.property(worldArbitrary, ({ link, visitor, fx, nowMs }) => {
        const decision = decideRoute(link, visitor, fx, nowMs);
        fc.pre(decision.outcome !== 'passthrough');
        expect(decision.confidenceFactor).toBeGreaterThanOrEqual(CONFIDENCE_MIN);
        expect(decision.confidenceFactor).toBeLessThanOrEqual(CONFIDENCE_MAX);
        expect(decision.trace.signals).toHaveLength(16);
        expect(decision.trace.alternatives.every((a) => a.whyNotChosen !== '')).toBe(true);
        expect(decision.trace.excluded.every((e) => e.reason !== '')).toBe(true);
        expect(new URL(decision.routedUrl).hostname).toBe(
          link.merchant?.regions[decision.region ?? ''].storefront,
        );
      }),
      { numRuns: 300 },
    );
  });

  it("should make normalizedEpcUsd hint / rate times the product of the winner's multipliers", () => {
    fc.assert(
      fc.property(worldArbitrary, (world) => {
        const decision = decideRoute(world.link, world.visitor, world.fx, world.nowMs);
        const { regionTier, market } = decision.trace;
        fc.pre(decision.outcome !== 'passthrough' && regionTier !== null && market !== null);
        const region = world.link.merchant?.regions[decision.region ?? ''] as MerchantRegion;
        const epcBaseUsd =
          (region.epcHints[decision.networkId as NetworkId] as number) /
          world.fx.rates[region.baseCurrency];
        const epcSignal = decision.trace.signals.find((signal) => signal.name === 'epc_base');
        const fxSignal = decision.trace.signals.find((signal) => signal.name === 'fx');
        expect(epcSignal?.value).toBe(epcBaseUsd);
        expect(fxSignal).toMatchObject({ value: world.fx.rates[region.baseCurrency], weight: 0 });
        const expected = epcBaseUsd * expectedMultiplierProduct(world, region, regionTier, market);
        expect(decision.normalizedEpcUsd).toBeCloseTo(expected, 12);
        expect(Math.abs(decision.normalizedEpcUsd - expected)).toBeLessThanOrEqual(
          1e-12 * expected,
        );
      }),
      { numRuns: 500 },
    );
  });

  describe('dominance', () => {
    // Two storefronts shipping to NZ (tier 2 both); B is no better than A on every signal and
    // strictly worse on one that always counts (hint, trust, refund or COD).
    const lowered = fc.record({
      strict: fc.constantFrom('hint', 'trust', 'refund', 'cod'),
      device: fc.boolean(),
      deeplink: fc.boolean(),
      category: fc.boolean(),
      others: fc.subarray(['hint', 'trust', 'refund', 'cod'] as const),
      fraction: fc.double({ min: 0.05, max: 0.5, noNaN: true }),
    });
    const strongRegion = fc.record({
      hint: fc.double({ min: 0.01, max: 5, noNaN: true }),
      trustScore: fc.double({ min: 10, max: 100, noNaN: true }),
      deepLinkSupported: fc.boolean(),
      deepLinkMultiplier: fc.double({ min: 0.01, max: 0.12, noNaN: true }),
      deviceBiases: fc.record({ ios: bias, android: bias, desktop: bias }),
      fashion: fc.double({ min: 0.5, max: 1.5, noNaN: true }),
      refundRateEstimate: fc.double({ min: 0, max: 0.5, noNaN: true }),
      codFactor: fc.double({ min: 0.5, max: 1, noNaN: true }),
    });

    it('should never let a dominated candidate win, under any preset', () => {
      fc.assert(
        fc.property(
          strongRegion,
          lowered,
          fc.boolean(),
          fc.constantFrom(...ROUTING_PRESET_IDS),
          visitorArbitrary,
          fc.constantFrom('validated', 'unchecked', 'invalid', 'ttl_expired'),
          fc.constantFrom<ProductCategory | undefined>(undefined, 'fashion'),
          fc.boolean(),
          (a, lower, isStrongFirst, preset, visitor, deepLinkStatus, category, isStale) => {
            const cut = (name: 'hint' | 'trust' | 'refund' | 'cod'): number =>
              lower.strict === name || lower.others.includes(name) ? 1 - lower.fraction : 1;
            const shipsToNz = {
              globalAvailability: false,
              stockAware: false,
              shipsToCountries: ['NZ'],
            };
            const strongKey = isStrongFirst ? 'AA' : 'BB';
            const weakKey = isStrongFirst ? 'BB' : 'AA';
            const strong = buildRegion(storefrontOf(strongKey), {
              epcHints: { awin: a.hint },
              preferredNetworks: ['awin'],
              trustScore: a.trustScore,
              deepLinkSupported: a.deepLinkSupported,
              deepLinkMultiplier: a.deepLinkMultiplier,
              deviceBiases: a.deviceBiases,
              categoryMultipliers: { fashion: a.fashion },
              refundRateEstimate: a.refundRateEstimate,
              codFactor: a.codFactor,
              availabilityFlags: shipsToNz,
            });
            const shift = lower.device ? 0.1 * lower.fraction : 0;
            const weak = buildRegion(storefrontOf(weakKey), {
              // The tie-breaks all favour the weak candidate: they must never be reached.
              epcHints: { cj: a.hint * cut('hint') },
              preferredNetworks: ['cj'],
              trustScore: a.trustScore * cut('trust'),
              deepLinkSupported: a.deepLinkSupported && !lower.deeplink,
              deepLinkMultiplier: a.deepLinkMultiplier,
              deviceBiases: {
                ios: a.deviceBiases.ios - shift,
                android: a.deviceBiases.android - shift,
                desktop: a.deviceBiases.desktop - shift,
              },
              categoryMultipliers: {
                fashion: a.fashion * (lower.category ? 1 - lower.fraction : 1),
              },
              refundRateEstimate: 1 - (1 - a.refundRateEstimate) * cut('refund'),
              codFactor: a.codFactor * cut('cod'),
              availabilityFlags: shipsToNz,
            });
            const merchant = buildProfile({ [strongKey]: strong, [weakKey]: weak });
            const decision = decideRoute(
              {
                originalUrl: `https://${storefrontOf(weakKey)}/p/1`,
                merchant,
                preset,
                category,
                passthrough: false,
                probes: { deepLinkStatus, healthStatus: 'ok' },
                networkAccounts: { awin: 'a', cj: 'c' },
              },
              { ...visitor, country: 'NZ' },
              fxSnapshot({ isStale }),
              NOW_MS,
            );
            expect(decision).toMatchObject({ region: strongKey, networkId: 'awin' });
            expect(decision.trace.alternatives).toHaveLength(1);
            expect(decision.trace.alternatives[0].whyNotChosen).toMatch(/USD below the winner$/);
          },
        ),
        { numRuns: 1000 },
      );
    });
  });
});
