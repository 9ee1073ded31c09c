import type { MerchantProfile } from '../../merchants/kb/merchant-profile';
import { confidencePercent } from './confidence';
import { decideRoute } from './decide-route';
import {
  buildProfile,
  buildRegion,
  fxSnapshot,
  linkInput,
  NOW_MS,
  seedProfile,
  visitorContext,
} from './engine.fixtures';
import type { LinkRoutingInput, RoutingDecision, VisitorContext } from './routing-types';

const amazon = seedProfile('amazon');
const apple = seedProfile('apple');
const asos = seedProfile('asos');
const aliexpress = seedProfile('aliexpress');
const adidas = seedProfile('adidas');
const myntra = seedProfile('myntra');
const ikea = seedProfile('ikea');

const AMAZON_URL =
  'https://www.amazon.com/Apple-Generation-Cancelling/dp/B0CHWRXH8B/ref=sr_1_3?keywords=airpods&th=1&tag=someone-20';

function decide(
  merchant: MerchantProfile | null,
  url: string,
  visitor: Partial<VisitorContext> = {},
  link: Partial<LinkRoutingInput> = {},
): RoutingDecision {
  return decideRoute(linkInput(merchant, url, link), visitorContext(visitor), fxSnapshot(), NOW_MS);
}

function withoutCrossStorefrontDeepLinks(profile: MerchantProfile): MerchantProfile {
  return {
    ...profile,
    merchantCapabilities: { ...profile.merchantCapabilities, deepLinking: false },
  };
}

// Invariants every decision keeps, whatever its outcome.
function expectWellFormedTrace(decision: RoutingDecision): void {
  for (const alternative of decision.trace.alternatives) {
    expect(alternative.whyNotChosen.length).toBeGreaterThan(0);
  }
  for (const exclusion of decision.trace.excluded) {
    expect(exclusion.reason.length).toBeGreaterThan(0);
  }
  if (decision.outcome === 'passthrough') {
    expect(decision.trace.winner).toBeNull();
    expect(decision.canonicalUrl).toBe('');
    expect(decision.networkId).toBeNull();
    return;
  }
  const { winner, scoringFormula, signals } = decision.trace;
  expect(signals).toHaveLength(16);
  expect(winner).toEqual({
    merchantId: decision.merchantId,
    networkId: decision.networkId,
    region: decision.region,
    routeScore: scoringFormula?.finalScore,
    normalizedEpcUsd: decision.normalizedEpcUsd,
    confidence: confidencePercent(decision.confidenceFactor),
  });
  expect(scoringFormula).toEqual({
    intermediateScore: decision.normalizedEpcUsd,
    confidenceFactor: decision.confidenceFactor,
    finalScore: decision.normalizedEpcUsd * decision.confidenceFactor,
  });
  const scores = decision.trace.alternatives.map((a) => a.routeScore);
  expect(scores).toEqual([...scores].sort((a, b) => b - a));
}

describe(decideRoute.name, () => {
  describe('routed', () => {
    it('should route a US visitor on amazon.com through Associates on amazon.com', () => {
      const decision = decide(amazon, AMAZON_URL, { country: 'US' });
      expect(decision).toMatchObject({
        outcome: 'routed',
        reason: 'best_epc',
        merchantId: 'amazon',
        region: 'US',
        networkId: 'amazon_associates',
        canonicalUrl: 'https://www.amazon.com/dp/B0CHWRXH8B',
        routedUrl:
          'https://www.amazon.com/dp/B0CHWRXH8B?tag=acct-amazon_associates&utm_source=linkpilot&utm_medium=affiliate&utm_campaign=linkpilot_default',
        deepLinkUsed: true,
      });
      expect(decision.trace.regionTier).toBe(1);
      expectWellFormedTrace(decision);
    });

    it('should move an IN visitor on amazon.com to amazon.in, since Amazon deep-links across storefronts', () => {
      expect(amazon.merchantCapabilities.deepLinking).toBe(true);
      const decision = decide(amazon, AMAZON_URL, {
        country: 'IN',
        device: 'mobile',
        os: 'android',
      });
      expect(decision).toMatchObject({ outcome: 'routed', region: 'IN', deepLinkUsed: true });
      expect(decision.routedUrl.startsWith('https://www.amazon.in/dp/B0CHWRXH8B?tag=')).toBe(true);
      expect(decision.trace.excluded).toContainEqual({
        region: 'US',
        networkId: null,
        reason: 'region US does not serve IN',
      });
      expectWellFormedTrace(decision);
    });

    it('should keep an IN visitor off amazon.in when cross-storefront deep links are not supported', () => {
      const decision = decide(withoutCrossStorefrontDeepLinks(amazon), AMAZON_URL, {
        country: 'IN',
      });
      expect(decision).toMatchObject({ outcome: 'passthrough', reason: 'no_candidates' });
      expect(decision.routedUrl).toBe(AMAZON_URL);
      expect(decision.trace.excluded).toContainEqual({
        region: 'IN',
        networkId: null,
        reason: 'merchant does not support deep links across storefronts',
      });
      expectWellFormedTrace(decision);
    });

    it("should route on the URL's own storefront when the market is unknown", () => {
      const decision = decide(amazon, 'https://m.amazon.in/dp/B0ABCDEF12', { country: null });
      expect(decision).toMatchObject({ outcome: 'routed', region: 'IN', reason: 'best_epc' });
      expect(decision.trace.market).toBe('IN');
    });

    it('should route a GLOBAL-only merchant directly on GLOBAL when the market is unknown', () => {
      const decision = decide(asos, 'https://www.asos.com/asos-design/shirt/prd/204567890', {
        country: null,
      });
      expect(decision).toMatchObject({
        outcome: 'routed',
        region: 'GLOBAL',
        networkId: 'partnerize',
      });
      expect(decision.trace.alternatives).toEqual([
        expect.objectContaining({
          networkId: 'awin',
          whyNotChosen: expect.stringMatching(/^scored .* USD below the winner$/),
        }),
      ]);
    });

    it('should exclude networks whose hint is 0 with the reason in the trace', () => {
      const decision = decide(adidas, 'https://www.adidas.com/us/samba-og-shoes/B75806.html');
      expect(decision).toMatchObject({ outcome: 'routed', networkId: 'cj' });
      expect(decision.trace.excluded).toEqual(
        expect.arrayContaining([
          { region: 'US', networkId: 'awin', reason: 'EPC hint is 0 in US' },
          { region: 'US', networkId: 'cuelinks', reason: 'EPC hint is 0 in US' },
        ]),
      );
      expect(decision.trace.alternatives.map((a) => a.networkId)).toEqual(['impact']);
      expectWellFormedTrace(decision);
    });

    it('should let an active pin win over a better score', () => {
      const decision = decide(
        adidas,
        'https://www.adidas.com/us/samba-og-shoes/B75806.html',
        {},
        { networkOverride: { networkId: 'impact', expiresAt: '2027-01-01T00:00:00Z' } },
      );
      expect(decision).toMatchObject({
        outcome: 'routed',
        reason: 'network_override',
        networkId: 'impact',
      });
      expect(decision.trace.networkOverride).toEqual({ networkId: 'impact', status: 'applied' });
      expect(decision.trace.alternatives[0].whyNotChosen).toMatch(
        /^the link pins network impact; this route scored .* USD above it$/,
      );
      expect(new URL(decision.routedUrl).searchParams.get('irclickid')).toBe('lp_acct-impact');
    });

    it('should ignore an expired pin', () => {
      const decision = decide(
        adidas,
        'https://www.adidas.com/us/samba-og-shoes/B75806.html',
        {},
        { networkOverride: { networkId: 'impact', expiresAt: '2026-12-01T11:59:59Z' } },
      );
      expect(decision).toMatchObject({ outcome: 'routed', reason: 'best_epc', networkId: 'cj' });
      expect(decision.trace.networkOverride?.status).toBe('expired');
    });
  });

  describe('fallback', () => {
    it('should fall back to the storefronts shipping to a country Amazon has no store in', () => {
      const decision = decide(amazon, AMAZON_URL, { country: 'NZ' });
      expect(decision).toMatchObject({ outcome: 'fallback', reason: 'visitor_region_missing' });
      expect(decision.trace.regionTier).toBe(2);
      const scored = [decision.region, ...decision.trace.alternatives.map((a) => a.region)];
      expect(scored.sort()).toEqual(['AU', 'US']);
      expectWellFormedTrace(decision);
    });

    it('should fall back to GLOBAL where no regional storefront serves the country', () => {
      const decision = decide(aliexpress, 'https://www.aliexpress.com/item/1005006543210987.html', {
        country: 'MX',
      });
      expect(decision).toMatchObject({
        outcome: 'fallback',
        reason: 'visitor_region_missing',
        region: 'GLOBAL',
        networkId: 'cj',
      });
      expect(decision.trace.regionTier).toBe(3);
      expect(decision.trace.signals.find((s) => s.name === 'region_match')?.value).toBe(0.93);
      expectWellFormedTrace(decision);
    });

    it('should fall back on the original storefront when it ships to the visitor but cannot move', () => {
      const decision = decide(withoutCrossStorefrontDeepLinks(amazon), AMAZON_URL, {
        country: 'CA',
      });
      expect(decision).toMatchObject({ outcome: 'fallback', region: 'US' });
    });

    it('should fall back to the EPC choice when the pinned network is unavailable there', () => {
      const decision = decide(
        adidas,
        'https://www.adidas.com/us/samba-og-shoes/B75806.html',
        {},
        { networkOverride: { networkId: 'awin' } },
      );
      expect(decision).toMatchObject({
        outcome: 'fallback',
        reason: 'network_override_unavailable',
        networkId: 'cj',
      });
      expect(decision.trace.networkOverride).toEqual({ networkId: 'awin', status: 'unavailable' });
      expectWellFormedTrace(decision);
    });

    it("should route apple's App Store links through partnerize on GLOBAL outside the US", () => {
      const decision = decide(apple, 'https://apps.apple.com/gb/app/some-app/id1234567890', {
        country: 'GB',
      });
      expect(decision).toMatchObject({
        outcome: 'fallback',
        region: 'GLOBAL',
        networkId: 'partnerize',
      });
      expect(decision.trace.excluded).toContainEqual({
        region: 'GLOBAL',
        networkId: 'impact',
        reason: 'EPC hint is 0 in GLOBAL',
      });
    });
  });

  describe('passthrough', () => {
    const ODD_URLS = [
      'https://shop.example.org/a%2Fb/%E2%82%AC?q=%zz&x=1+2&x=3#frag',
      'HTTPS://Shop.Example.ORG:443/./p/../%7euser?utm_source=a&%20=%20',
      'https://xn--bcher-kva.example/b%C3%BCcher?s=%F0%9F%98%80',
      'not even a url',
    ];

    it.each(ODD_URLS)('should serve an unsupported URL byte for byte: %s', (url) => {
      const decision = decide(null, url);
      expect(decision).toMatchObject({
        outcome: 'passthrough',
        reason: 'unsupported_merchant',
        merchantId: null,
        canonicalUrl: '',
      });
      expect(decision.routedUrl).toBe(url);
      expectWellFormedTrace(decision);
    });

    it.each([
      {
        case: 'the creator turned passthrough on',
        merchant: amazon,
        url: AMAZON_URL,
        visitor: {},
        link: { passthrough: true },
        reason: 'passthrough_requested',
      },
      {
        case: 'the programme is closed',
        merchant: ikea,
        url: 'https://www.ikea.com/us/en/p/billy-bookcase-white-00263850/',
        visitor: {},
        link: {},
        reason: 'programme_closed',
      },
      {
        case: "apple's store URL is passthroughRequired",
        merchant: apple,
        url: 'https://www.apple.com/shop/buy-iphone/iphone-16?utm_source=x',
        visitor: { country: 'GB' },
        link: {},
        reason: 'passthrough_required',
      },
      {
        case: "apple's chosen US storefront is passthroughRequired",
        merchant: apple,
        url: 'https://apps.apple.com/us/app/some-app/id1234567890',
        visitor: { country: 'US' },
        link: {},
        reason: 'passthrough_required',
      },
      {
        case: 'the market is banned',
        merchant: aliexpress,
        url: 'https://www.aliexpress.com/item/1005006543210987.html?spm=a2g0o',
        visitor: { country: 'IN' },
        link: {},
        reason: 'banned_market',
      },
      {
        case: 'no storefront serves the market',
        merchant: amazon,
        url: AMAZON_URL,
        visitor: { country: 'KE' },
        link: {},
        reason: 'no_region_for_market',
      },
      {
        case: 'the creator has no account on any usable network',
        merchant: myntra,
        url: 'https://www.myntra.com/tshirts/roadster/1234567/buy',
        visitor: { country: 'IN' },
        link: { networkAccounts: { awin: 'a' } },
        reason: 'no_active_network_account',
      },
      {
        case: 'the URL cannot be parsed',
        merchant: amazon,
        url: 'ftp://www.amazon.com/dp/B0CHWRXH8B',
        visitor: {},
        link: {},
        reason: 'invalid_url',
      },
    ] as const)(
      'should pass through when $case ($reason)',
      ({ merchant, url, visitor, link, reason }) => {
        const decision = decide(merchant, url, visitor, link);
        expect(decision).toMatchObject({
          outcome: 'passthrough',
          reason,
          merchantId: merchant.merchantId,
          region: null,
          networkId: null,
          canonicalUrl: '',
          normalizedEpcUsd: 0,
          confidenceFactor: 0,
          deepLinkUsed: false,
        });
        expect(decision.routedUrl).toBe(url);
        expectWellFormedTrace(decision);
      },
    );

    it('should pass through with no_candidates when every hint is 0', () => {
      const dry = buildProfile({
        US: buildRegion('shop.example.com', { epcHints: { awin: 0, cj: 0 } }),
      });
      const decision = decide(dry, 'https://shop.example.com/p/1');
      expect(decision).toMatchObject({ outcome: 'passthrough', reason: 'no_candidates' });
      expect(decision.trace.excluded.map((e) => e.networkId)).toEqual(['awin', 'cj']);
    });
  });

  describe('visitor', () => {
    it.each([
      { device: 'mobile', os: null, expected: 1.04 },
      { device: 'tablet', os: 'ios', expected: 1.05 },
      { device: 'desktop', os: 'ios', expected: 1 },
    ] as const)('should use device bias $expected for $device/$os', ({ device, os, expected }) => {
      const decision = decide(amazon, AMAZON_URL, { device, os });
      expect(decision.trace.signals.find((s) => s.name === 'device')?.value).toBeCloseTo(
        expected,
        12,
      );
    });

    it('should not mutate its inputs', () => {
      const link = linkInput(amazon, AMAZON_URL, { utmOverride: { utm_term: 'x' } });
      const visitor = visitorContext({ country: 'NZ' });
      const fx = fxSnapshot();
      const before = JSON.stringify([link, visitor, fx]);
      decideRoute(link, visitor, fx, NOW_MS);
      expect(JSON.stringify([link, visitor, fx])).toBe(before);
    });
  });
});
