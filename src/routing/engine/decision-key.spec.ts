import { isDeepStrictEqual } from 'node:util';
import * as fc from 'fast-check';
import type { FxSnapshot } from '../../fx/math/fx-snapshot';
import type { MerchantProfile, NetworkId } from '../../merchants/kb/merchant-profile';
import { decideRoute } from './decide-route';
import { DecisionKeys } from './decision-key';
import {
  ALL_NETWORK_ACCOUNTS,
  FRESH_RATES,
  fxSnapshot,
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
import { routeKey, type ObservedRoute, type RouteLearning } from './learned-epc';
import { toLinkRoutingInput } from './link-routing-input';
import {
  ROUTING_PRESET_IDS,
  type DeepLinkStatus,
  type HealthStatus,
  type LinkRoutingInput,
  type VisitorContext,
} from './routing-types';

const DAY_MS = 24 * 3600 * 1000;

/**
 * One argument list of decideRoute as named choices, so that two lists can differ in one or
 * two of them. Each pool holds near misses a hand-written key could confuse: a profile or rates
 * changed under the same id or timestamp, renamed affiliate ids, a pin around its expiry.
 */
const CHOICES = {
  merchantId: fc.constantFrom(...SEEDED_MERCHANT_IDS),
  merchant: fc.constantFrom('as-seeded', 'closed', 'repriced', 'unknown'),
  urlIndex: fc.nat(),
  preset: fc.constantFrom(...ROUTING_PRESET_IDS),
  category: fc.constantFrom(null, 'fashion' as const, 'electronics' as const, 'books' as const),
  passthrough: fc.oneof({ arbitrary: fc.constant(false), weight: 9 }, fc.constant(true)),
  pin: fc.constantFrom('none', 'pinned', 'expiring', 'expired', 'garbage'),
  pinNetwork: fc.constantFrom<NetworkId>(
    'amazon_associates',
    'awin',
    'cj',
    'impact',
    'rakuten_affiliate',
  ),
  probes: fc.record({
    deepLinkStatus: fc.constantFrom<DeepLinkStatus>('validated', 'unchecked', 'invalid'),
    healthStatus: fc.constantFrom<HealthStatus>('ok', 'critical', 'unknown'),
  }),
  accounts: fc.constantFrom('all', 'renamed', 'without-awin-and-amazon', 'none'),
  utm: fc.constantFrom('none', 'source', 'campaign'),
  // The country apart from the rest of the visitor, so that it often changes alone.
  country: fc.option(fc.constantFrom(...VISITOR_COUNTRIES), { nil: null }),
  visitor: visitorArbitrary,
  fx: fc.constantFrom('fresh', 'stale', 'repriced', 'later'),
  // Learned routing: none (hinted), no observation yet, observations, the same with another k.
  learning: fc.constantFrom('hinted', 'learned-empty', 'learned-observed', 'learned-k50'),
  nowMs: fc.constantFrom(NOW_MS, NOW_MS + 1, NOW_MS + 2 * DAY_MS),
};
const choicesArbitrary = fc.record(CHOICES);
type Choices = typeof choicesArbitrary extends fc.Arbitrary<infer T> ? T : never;
const CHOICE_NAMES = Object.keys(CHOICES) as (keyof Choices)[];

interface DecideArguments {
  link: LinkRoutingInput;
  visitor: VisitorContext;
  fx: FxSnapshot;
  nowMs: number;
}

const seeded = new Map(SEEDED_MERCHANT_IDS.map((id) => [id, seedProfile(id)]));

function merchantOf({ merchantId, merchant }: Choices): MerchantProfile | null {
  if (merchant === 'unknown') return null;
  // A copy each time: equal content in another object must give the same key.
  const profile = structuredClone(seeded.get(merchantId)!);
  if (merchant === 'closed') profile.programStatus = 'closed';
  if (merchant === 'repriced') {
    for (const region of Object.values(profile.regions)) {
      for (const network of Object.keys(region.epcHints) as NetworkId[]) {
        region.epcHints[network] = (region.epcHints[network] ?? 0) * 3;
      }
    }
  }
  return profile;
}

function affiliateIdsOf(accounts: Choices['accounts']): Partial<Record<NetworkId, string>> {
  const all: Partial<Record<NetworkId, string>> = { ...ALL_NETWORK_ACCOUNTS };
  switch (accounts) {
    case 'all':
      return all;
    case 'renamed':
      return Object.fromEntries(Object.entries(all).map(([id, value]) => [id, `${value}-2`]));
    case 'without-awin-and-amazon':
      delete all.awin;
      delete all.amazon_associates;
      return all;
    case 'none':
      return {};
  }
}

function fxOf(fx: Choices['fx']): FxSnapshot {
  switch (fx) {
    case 'fresh':
      return fxSnapshot();
    case 'stale':
      return fxSnapshot({ isStale: true });
    // Other rates under the same timestamp: the key may not take the timestamp for the rates.
    case 'repriced':
      return fxSnapshot({ rates: { ...FRESH_RATES, GBP: 0.5, EUR: 0.6, INR: 120, JPY: 90 } });
    case 'later':
      return fxSnapshot({ timestamp: '2026-12-01T01:05:00.000Z' });
  }
}

/** Observations per route of the merchant: each network's clicks earned a different amount. */
function learningOf(choices: Choices): RouteLearning | undefined {
  if (choices.learning === 'hinted') return undefined;
  const observed: Record<string, ObservedRoute> = {};
  if (choices.learning !== 'learned-empty') {
    const profile = seeded.get(choices.merchantId)!;
    for (const [regionKey, region] of Object.entries(profile.regions)) {
      (Object.keys(region.epcHints) as NetworkId[]).forEach((networkId, index) => {
        observed[routeKey(profile.merchantId, regionKey, networkId)] = {
          clicks: 500,
          commissionUsd: 10 * index,
        };
      });
    }
  }
  return {
    priorClicks: choices.learning === 'learned-k50' ? 50 : 200,
    explorationShare: 0.05,
    observed,
  };
}

/** Fresh objects on every call, as the edge's caches hand out after a re-read. */
function argumentsOf(choices: Choices): DecideArguments {
  const examples = seeded.get(choices.merchantId)!.canonicalization.examples;
  const pin = {
    none: null,
    pinned: { networkId: choices.pinNetwork },
    expiring: { networkId: choices.pinNetwork, expiresAt: new Date(NOW_MS + DAY_MS).toISOString() },
    expired: { networkId: choices.pinNetwork, expiresAt: new Date(NOW_MS - DAY_MS).toISOString() },
    garbage: { networkId: choices.pinNetwork, expiresAt: 'not a date' },
  }[choices.pin];
  const utm = {
    none: null,
    source: { utm_source: 'newsletter' },
    campaign: { utm_campaign: 'spring', utm_content: '' },
  }[choices.utm];
  const link = toLinkRoutingInput(
    {
      originalUrl: examples[choices.urlIndex % examples.length].input,
      preset: choices.preset,
      category: choices.category,
      passthrough: choices.passthrough,
      networkOverride: pin,
      utmOverride: utm,
      probes: { ...choices.probes },
    },
    merchantOf(choices),
    affiliateIdsOf(choices.accounts),
    learningOf(choices),
  );
  const visitor = { ...choices.visitor, country: choices.country };
  return { link, visitor, fx: fxOf(choices.fx), nowMs: choices.nowMs };
}

// Two argument lists that differ in one or two choices (maybe drawn equal again).
const pairArbitrary = fc
  .tuple(
    choicesArbitrary,
    choicesArbitrary,
    fc.subarray([...CHOICE_NAMES], { minLength: 1, maxLength: 2 }),
  )
  .map(([first, other, changed]) => {
    const second = { ...first };
    for (const name of changed) Object.assign(second, { [name]: other[name] });
    return [first, second] as const;
  });

const decide = ({ link, visitor, fx, nowMs }: DecideArguments) =>
  decideRoute(link, visitor, fx, nowMs);
// One instance for the whole file, as the redirect holds one: keys are compared within it.
const keys = new DecisionKeys();
const keyOf = ({ link, visitor, fx, nowMs }: DecideArguments) =>
  keys.exact(link, visitor, fx, nowMs);
const sharedKeyOf = ({ link, visitor, fx, nowMs }: DecideArguments) =>
  keys.shared(link, visitor, fx, nowMs);

describe('DecisionKeys.exact', () => {
  it('should give equal decisions to any two argument lists with the same key', () => {
    let sameKeys = 0;
    let otherDecisions = 0;
    fc.assert(
      fc.property(pairArbitrary, ([firstChoices, secondChoices]) => {
        const first = argumentsOf(firstChoices);
        const second = argumentsOf(secondChoices);
        const isSameKey = keyOf(first) === keyOf(second);
        const isSameDecision = isDeepStrictEqual(decide(first), decide(second));
        if (isSameKey) sameKeys++;
        if (!isSameDecision) otherDecisions++;
        // Equivalently: any change of input that changes the decision changes the key.
        expect(isSameKey && !isSameDecision).toBe(false);
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: keys are often equal, and the changed inputs often change the decision.
    expect(sameKeys).toBeGreaterThan(300);
    expect(otherDecisions).toBeGreaterThan(300);
  });

  it('should give the same key to equal arguments in other objects', () => {
    fc.assert(
      fc.property(choicesArbitrary, (choices) => {
        expect(keyOf(argumentsOf(choices))).toBe(keyOf(argumentsOf(choices)));
      }),
      { numRuns: 300 },
    );
  });

  it.each<[string, Partial<Choices>]>([
    ['the rates change under the same timestamp', { fx: 'repriced' }],
    ['the profile changes under the same merchant id', { merchant: 'repriced' }],
    ['the affiliate ids change on the same networks', { accounts: 'renamed' }],
    ['the pin expires', { pin: 'expiring', nowMs: NOW_MS + 2 * DAY_MS }],
    ["the creator's observations change", { learning: 'learned-observed' }],
  ])('should change the key when %s', (_case, change) => {
    const base: Choices = {
      merchantId: 'asos',
      merchant: 'as-seeded',
      urlIndex: 0,
      preset: 'default',
      category: null,
      passthrough: false,
      pin: change.pin ?? 'none',
      pinNetwork: 'awin',
      probes: { deepLinkStatus: 'validated', healthStatus: 'ok' },
      accounts: 'all',
      utm: 'none',
      country: 'GB',
      visitor: visitorContext(),
      fx: 'fresh',
      learning: 'learned-empty',
      nowMs: NOW_MS,
    };
    const before = argumentsOf(base);
    const after = argumentsOf({ ...base, ...change });
    expect(decide(after)).not.toEqual(decide(before));
    expect(keyOf(after)).not.toBe(keyOf(before));
  });
});

describe('DecisionKeys.shared', () => {
  it('should give the same route to any two argument lists with the same shared key', () => {
    let sharedAcrossCountries = 0;
    fc.assert(
      fc.property(pairArbitrary, ([firstChoices, secondChoices]) => {
        const first = argumentsOf(firstChoices);
        const second = argumentsOf(secondChoices);
        fc.pre(sharedKeyOf(first) === sharedKeyOf(second));
        if (first.visitor.country !== second.visitor.country) sharedAcrossCountries++;
        expect(routeOf(decide(second))).toEqual(routeOf(decide(first)));
      }),
      { numRuns: 2000, maxSkipsPerRun: 1000 },
    );
    expect(sharedAcrossCountries).toBeGreaterThan(50);
  });
});
