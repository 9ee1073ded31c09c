import type { RoutingDecision } from '../routing/engine/routing-types';
import type { RouteQuestion, RoutingContext } from '../routing/routing.service';
import {
  destinationRecordOf,
  type DestinationRouter,
  type LinkDestination,
  routeDestination,
} from './link-destination';
import type { LinkRoutingRecord } from './link-routing-record';

const CONTEXT = { fx: {}, accounts: {}, nowMs: 0 } as unknown as RoutingContext;

function decision(overrides: Partial<RoutingDecision> = {}): RoutingDecision {
  return {
    outcome: 'routed',
    reason: 'highest_epc' as never,
    merchantId: 'amazon',
    region: 'US',
    networkId: 'amazon_associates',
    routedUrl: 'https://www.amazon.com/dp/B000000001?tag=creator-20',
    canonicalUrl: 'https://www.amazon.com/dp/B000000001',
    normalizedEpcUsd: 0.12345678,
    confidenceFactor: 0.987654,
    deepLinkUsed: false,
    trace: {} as RoutingDecision['trace'],
    ...overrides,
  };
}

function recorder(answer: RoutingDecision): DestinationRouter & { questions: RouteQuestion[] } {
  const questions: RouteQuestion[] = [];
  return {
    questions,
    decideWith: (_context, question) => {
      questions.push(question);
      return { decision: answer, merchant: null };
    },
  };
}

const RECORD: LinkRoutingRecord = {
  linkId: 'lnk_1',
  version: '1|unchecked|unknown',
  creatorId: 'crt_1',
  environment: 'live',
  originalUrl: 'https://www.amazon.com/dp/B09G9FPHY6',
  merchantId: 'amazon',
  passthrough: false,
  preset: 'default',
  category: null,
  networkOverride: null,
  utmOverride: null,
  forwardQuery: false,
  attribution: null,
  probes: { deepLinkStatus: 'unchecked', healthStatus: 'unknown' },
  stored: {
    routedUrl: 'https://www.amazon.com/dp/B09G9FPHY6?tag=creator-20',
    region: 'US',
    networkId: 'amazon_associates',
    outcome: 'routed',
    normalizedEpcUsd: 0.1,
    confidenceFactor: 1,
    deepLinkUsed: false,
  },
};

describe(routeDestination.name, () => {
  it("should ask the engine with the link's settings and never passthrough", () => {
    const router = recorder(decision());
    routeDestination(router, CONTEXT, 'https://www.amazon.com/dp/B000000001', {
      preset: 'link_in_bio',
      category: 'electronics',
      utmOverride: { utm_source: 'x' },
      visitorCountry: 'DE',
      deviceType: 'mobile',
    });
    expect(router.questions).toEqual([
      {
        originalUrl: 'https://www.amazon.com/dp/B000000001',
        visitorCountry: 'DE',
        deviceType: 'mobile',
        preset: 'link_in_bio',
        category: 'electronics',
        passthrough: false,
        networkOverride: null,
        utmOverride: { utm_source: 'x' },
      },
    ]);
  });

  it('should store the canonical URL, merchant and rounded stored route when routed', () => {
    const destination = routeDestination(
      recorder(decision()),
      CONTEXT,
      'https://www.amazon.com/dp/B000000001',
      {},
    );
    expect(destination).toEqual({
      originalUrl: 'https://www.amazon.com/dp/B000000001',
      canonicalUrl: 'https://www.amazon.com/dp/B000000001',
      merchantId: 'amazon',
      stored: {
        routedUrl: 'https://www.amazon.com/dp/B000000001?tag=creator-20',
        region: 'US',
        networkId: 'amazon_associates',
        outcome: 'routed',
        normalizedEpcUsd: 0.123457,
        confidenceFactor: 0.9877,
        deepLinkUsed: false,
      },
    });
    // Plain data: what a jsonb column and the edge's JSON cache hold.
    expect(JSON.parse(JSON.stringify(destination))).toEqual(destination);
  });
});

describe(destinationRecordOf.name, () => {
  const destination: LinkDestination = {
    originalUrl: 'https://example.org/page',
    canonicalUrl: '',
    merchantId: null,
    stored: { ...RECORD.stored, routedUrl: 'https://example.org/page', outcome: 'passthrough' },
  };

  it("should replace the link's URL, merchant and stored route and keep the rest", () => {
    const routed = destinationRecordOf(RECORD, destination);
    expect(routed).toEqual({
      ...RECORD,
      originalUrl: 'https://example.org/page',
      merchantId: null,
      stored: destination.stored,
    });
    expect(RECORD.originalUrl).toBe('https://www.amazon.com/dp/B09G9FPHY6');
  });

  it('should hand out one object per record and destination when asked again', () => {
    const first = destinationRecordOf(RECORD, destination);
    expect(destinationRecordOf(RECORD, destination)).toBe(first);
    const nextVersion = { ...RECORD, version: '2|unchecked|unknown' };
    const forNext = destinationRecordOf(nextVersion, destination);
    expect(forNext).not.toBe(first);
    expect(forNext.version).toBe('2|unchecked|unknown');
  });
});
