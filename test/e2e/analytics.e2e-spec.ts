import { ulid } from 'ulid';
import type { ClickEntity } from '../../src/analytics/click.entity';
import { ClickSeed, insertClicks } from '../factories/click.factory';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

// "Today" is 2026-03-15 (UTC): the default summary period is 2026-03-01 to 2026-03-15.
const NOW_MS = Date.parse('2026-03-15T18:00:00.000Z');
const LINK_A = ulid(NOW_MS);

/** The main creator's clicks, keyed by name; c01 falls in the previous month. */
const CLICKS: Record<string, ClickSeed> = {
  c01: {
    clickedAt: '2026-02-28T23:59:59.999Z',
    merchantId: 'asos',
    networkId: 'awin',
    outcome: 'routed',
    preset: 'default',
    normalizedEpcUsd: 0.5,
    confidence: 1,
  },
  c02: {
    clickedAt: '2026-03-01T00:00:00.000Z',
    merchantId: 'asos',
    networkId: 'awin',
    outcome: 'routed',
    preset: 'default',
    normalizedEpcUsd: 0.3,
    confidence: 0.9,
    linkId: LINK_A,
  },
  c03: {
    clickedAt: '2026-03-02T10:00:00.000Z',
    merchantId: 'asos',
    networkId: 'impact',
    outcome: 'fallback',
    preset: 'link_in_bio',
    normalizedEpcUsd: 0.2,
    confidence: 0.8,
    region: 'DE',
    visitorCountry: 'AT',
  },
  c04: {
    clickedAt: '2026-03-03T23:59:59.999Z',
    merchantId: 'amazon',
    networkId: 'amazon_associates',
    outcome: 'routed',
    preset: 'long_form',
    normalizedEpcUsd: 1.1,
    confidence: 1.05,
    region: 'US',
    visitorCountry: 'US',
    deviceClass: 'mobile',
    deepLinkUsed: true,
    privateDealApplied: true,
  },
  c05: {
    clickedAt: '2026-03-04T00:00:00.000Z',
    merchantId: 'amazon',
    networkId: 'amazon_associates',
    outcome: 'routed',
    preset: 'default',
    normalizedEpcUsd: 0.9,
    confidence: 1,
    region: 'US',
  },
  c06: {
    clickedAt: '2026-03-05T12:00:00.000Z',
    merchantId: 'nike',
    networkId: 'cj',
    outcome: 'routed',
    preset: 'link_in_bio',
    normalizedEpcUsd: 0.6,
    confidence: 0.85,
    region: 'US',
    deviceClass: 'tablet',
  },
  c07: {
    clickedAt: '2026-03-06T12:00:00.000Z',
    merchantId: null,
    networkId: null,
    region: null,
    outcome: 'passthrough',
    preset: 'default',
    normalizedEpcUsd: 0,
    confidence: 0,
    visitorCountry: null,
    deviceClass: 'unknown',
  },
  c08: {
    clickedAt: '2026-03-07T12:00:00.000Z',
    merchantId: 'amazon',
    networkId: null,
    region: null,
    outcome: 'passthrough',
    preset: 'default',
    normalizedEpcUsd: 0,
    confidence: 0,
  },
  c09: {
    clickedAt: '2026-03-08T12:00:00.000Z',
    merchantId: 'nike',
    networkId: 'cj',
    outcome: 'fallback',
    preset: 'long_form',
    normalizedEpcUsd: 0.4,
    confidence: 0.7,
    region: 'US',
  },
  c10: {
    clickedAt: '2026-03-10T12:00:00.000Z',
    merchantId: 'asos',
    networkId: 'awin',
    outcome: 'routed',
    preset: 'link_in_bio',
    normalizedEpcUsd: 0.55,
    confidence: 0.95,
    linkId: LINK_A,
  },
  // Same instant as c10: the record id breaks the tie.
  c11: {
    clickedAt: '2026-03-10T12:00:00.000Z',
    merchantId: 'asos',
    networkId: 'awin',
    outcome: 'routed',
    preset: 'default',
    normalizedEpcUsd: 0.35,
    confidence: 0.9,
  },
  c12: {
    clickedAt: '2026-03-12T12:00:00.000Z',
    merchantId: 'amazon',
    networkId: 'amazon_associates',
    outcome: 'routed',
    preset: 'default',
    normalizedEpcUsd: 1,
    confidence: 1.1,
    region: 'US',
  },
  c13: {
    clickedAt: '2026-03-15T09:00:00.000Z',
    merchantId: 'asos',
    networkId: 'awin',
    outcome: 'routed',
    preset: 'default',
    normalizedEpcUsd: 0.45,
    confidence: 0.9,
    linkId: LINK_A,
  },
};

/** Another creator's clicks on the same days, link id and merchants: never the caller's. */
const OTHER_CREATOR_CLICKS: ClickSeed[] = [
  {
    clickedAt: '2026-03-01T00:00:00.000Z',
    linkId: LINK_A,
    merchantId: 'asos',
    networkId: 'awin',
    normalizedEpcUsd: 9,
    confidence: 0.66,
  },
  {
    clickedAt: '2026-03-10T12:00:00.000Z',
    linkId: LINK_A,
    merchantId: 'amazon',
    networkId: 'amazon_associates',
    outcome: 'fallback',
    preset: 'long_form',
    normalizedEpcUsd: 7,
    confidence: 0.7,
  },
  {
    clickedAt: '2026-02-20T08:00:00.000Z',
    merchantId: null,
    networkId: null,
    outcome: 'passthrough',
    normalizedEpcUsd: 0,
    confidence: 0,
  },
];

interface ListBody {
  data: {
    items: { recordId: string }[];
    pagination: Record<string, number | boolean>;
  };
}

interface Breakdown {
  clicks: number;
}

const NO_EXCLUDED_HITS = {
  uniqueVisitors: 0,
  excludedHits: {
    bot_score: 0,
    bot_user_agent: 0,
    link_preview: 0,
    head: 0,
    ip_rate_limited: 0,
    creator_rate_limited: 0,
    quota_exhausted: 0,
    link_expired: 0,
    click_cap_reached: 0,
    cap_unverified: 0,
  },
  revenueNotEarnedUsd: { creator_rate_limited: 0, quota_exhausted: 0 },
};

describe('Analytics (e2e)', () => {
  const clock = new TestClock();
  let t: TestApp;
  let creator: TestCreator;
  let other: TestCreator;
  const stored: Record<string, ClickEntity> = {};
  let otherStored: ClickEntity[];

  const get = (path: string, who: TestCreator = creator) =>
    t.http.get(path).set('Authorization', who.authorization);
  const recordIdsOf = (body: ListBody) => body.data.items.map((item) => item.recordId);
  /** The stored clicks named, in the order the API promises: newest first, then record id. */
  const newestFirst = (...names: string[]) =>
    names
      .map((name) => stored[name])
      .sort(
        (a, b) =>
          b.clickedAt.getTime() - a.clickedAt.getTime() || (a.recordId < b.recordId ? 1 : -1),
      )
      .map((click) => click.recordId);
  const allNames = Object.keys(CLICKS);

  beforeAll(async () => {
    clock.freezeAt(NOW_MS);
    t = await startTestApp({}, { clock });
    creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    other = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const names = Object.keys(CLICKS);
    const rows = await insertClicks(
      t.app,
      creator.creatorId,
      names.map((name) => CLICKS[name]),
    );
    names.forEach((name, index) => (stored[name] = rows[index]));
    otherStored = await insertClicks(t.app, other.creatorId, OTHER_CREATOR_CLICKS);
  });
  afterAll(() => t.close());

  describe('GET /v1/analytics/clicks', () => {
    it('should answer every click newest first, with the default page of 25', async () => {
      const response = await get('/v1/analytics/clicks').expect(200);
      expect(response.body.success).toBe(true);
      expect(recordIdsOf(response.body)).toEqual(newestFirst(...allNames));
      expect(response.body.data.pagination).toEqual({
        page: 1,
        limit: 25,
        total: 13,
        totalPages: 1,
        hasNextPage: false,
        hasPrevPage: false,
        nextCursor: null,
      });
    });

    it('should break a tie of clickedAt by record id, descending', async () => {
      const response = await get('/v1/analytics/clicks?from=2026-03-10&to=2026-03-10').expect(200);
      const [first, second] = [stored.c10.recordId, stored.c11.recordId].sort().reverse();
      expect(recordIdsOf(response.body)).toEqual([first, second]);
    });

    it('should answer the [S] Click record plus visitorCountry, deviceClass and source', async () => {
      const response = await get('/v1/analytics/clicks?from=2026-03-03&to=2026-03-03').expect(200);
      expect(response.body.data.items).toEqual([
        {
          recordId: stored.c04.recordId,
          linkId: stored.c04.linkId,
          merchantId: 'amazon',
          region: 'US',
          networkId: 'amazon_associates',
          preset: 'long_form',
          outcome: 'routed',
          normalizedEpcUsd: 1.1,
          confidence: 1.05,
          deepLinkUsed: true,
          privateDealApplied: true,
          clickedAt: '2026-03-03T23:59:59.999Z',
          visitorCountry: 'US',
          deviceClass: 'mobile',
          ruleIndex: null,
          source: 'link',
        },
      ]);
      const passthrough = await get('/v1/analytics/clicks?from=2026-03-06&to=2026-03-06');
      expect(passthrough.body.data.items).toEqual([
        expect.objectContaining({
          recordId: stored.c07.recordId,
          merchantId: null,
          region: null,
          networkId: null,
          outcome: 'passthrough',
          normalizedEpcUsd: 0,
          confidence: 0,
          visitorCountry: null,
          deviceClass: 'unknown',
        }),
      ]);
    });

    describe('pagination', () => {
      const everyRecordId = () => newestFirst(...allNames);
      // A cursor wherever another click follows the page.
      const next = { hasNextPage: true, nextCursor: expect.any(String) as unknown };
      const last = { hasNextPage: false, nextCursor: null };
      const pages: [string, number, number[], Record<string, unknown>][] = [
        ['the first page', 1, [0, 5], { totalPages: 3, ...next, hasPrevPage: false }],
        ['a middle page', 2, [5, 10], { totalPages: 3, ...next, hasPrevPage: true }],
        ['the last, partial page', 3, [10, 13], { ...last, hasPrevPage: true }],
        ['a page past the end', 4, [13, 13], { ...last, hasPrevPage: true }],
        // page × limit = 10,000: the deepest record a page may reach.
        ['the deepest page served', 2_000, [13, 13], { ...last, hasPrevPage: true }],
      ];

      it.each(pages)('should answer %s', async (_name, page, [start, end], meta) => {
        const response = await get(`/v1/analytics/clicks?limit=5&page=${page}`).expect(200);
        expect(recordIdsOf(response.body)).toEqual(everyRecordId().slice(start, end));
        expect(response.body.data.pagination).toEqual({
          page,
          limit: 5,
          total: 13,
          totalPages: 3,
          ...meta,
        });
      });

      it('should answer limit 100 and limit 1', async () => {
        const hundred = await get('/v1/analytics/clicks?limit=100').expect(200);
        expect(hundred.body.data.items).toHaveLength(13);
        const one = await get('/v1/analytics/clicks?limit=1&page=13').expect(200);
        expect(recordIdsOf(one.body)).toEqual([stored.c01.recordId]);
        expect(one.body.data.pagination).toMatchObject({ totalPages: 13, hasNextPage: false });
      });
    });

    const filters: [string, string[]][] = [
      [`linkId=${LINK_A}`, ['c02', 'c10', 'c13']],
      ['merchantId=amazon', ['c04', 'c05', 'c08', 'c12']],
      ['merchantId=zalando', []],
      ['networkId=cj', ['c06', 'c09']],
      ['networkId=amazon_associates', ['c04', 'c05', 'c12']],
      ['outcome=passthrough', ['c07', 'c08']],
      ['outcome=fallback', ['c03', 'c09']],
      ['outcome=routed', ['c01', 'c02', 'c04', 'c05', 'c06', 'c10', 'c11', 'c12', 'c13']],
      ['preset=long_form', ['c04', 'c09']],
      ['preset=link_in_bio', ['c03', 'c06', 'c10']],
      [
        'merchantId=asos&outcome=routed&preset=default&from=2026-03-01&to=2026-03-10',
        ['c02', 'c11'],
      ],
    ];

    it.each(filters)('should filter by %s', async (query, names) => {
      const response = await get(`/v1/analytics/clicks?${query}`).expect(200);
      expect(recordIdsOf(response.body)).toEqual(newestFirst(...names));
      expect(response.body.data.pagination.total).toBe(names.length);
    });

    const dayBounds: [string, string[]][] = [
      // 23:59:59.999 of the day before `from` is out; 00:00 of `from` is in.
      ['from=2026-03-01', allNames.filter((name) => name !== 'c01')],
      ['to=2026-02-28', ['c01']],
      // 23:59:59.999 of `to` is in; 00:00 of the next day is out.
      ['from=2026-03-03&to=2026-03-03', ['c04']],
      ['from=2026-03-04&to=2026-03-04', ['c05']],
      ['from=2026-02-28&to=2026-03-01', ['c01', 'c02']],
      ['to=2026-03-03', ['c01', 'c02', 'c03', 'c04']],
      ['from=2026-03-16', []],
      ['from=0001-01-01&to=9999-12-31', allNames],
    ];

    it.each(dayBounds)('should treat %s as whole inclusive UTC days', async (query, names) => {
      const response = await get(`/v1/analytics/clicks?${query}`).expect(200);
      expect(recordIdsOf(response.body)).toEqual(newestFirst(...names));
    });

    it("should never answer another creator's clicks, even for the same link id", async () => {
      const mine = await get('/v1/analytics/clicks?limit=100').expect(200);
      const otherIds = otherStored.map((click) => click.recordId);
      expect(recordIdsOf(mine.body)).toHaveLength(13);
      for (const id of otherIds) expect(recordIdsOf(mine.body)).not.toContain(id);
      const byLink = await get(`/v1/analytics/clicks?linkId=${LINK_A}`, other).expect(200);
      expect(recordIdsOf(byLink.body)).toEqual([otherIds[1], otherIds[0]]);
      const theirs = await get('/v1/analytics/clicks', other).expect(200);
      expect(theirs.body.data.pagination.total).toBe(3);
    });
  });

  describe('GET /v1/analytics/summary', () => {
    const sumOf = (breakdown: Breakdown[]) =>
      breakdown.reduce((total, entry) => total + entry.clicks, 0);

    it('should summarise the current UTC month up to today by default, computed by hand', async () => {
      const response = await get('/v1/analytics/summary').expect(200);
      // c02..c13: twelve clicks; c01 (28 February) is last month.
      expect(response.body).toEqual({
        success: true,
        data: {
          periodStart: '2026-03-01',
          periodEnd: '2026-03-15',
          totalClicks: 12,
          routedClicks: 8,
          passthroughClicks: 2,
          fallbackClicks: 2,
          averageConfidence: 0.7625, // 9.15 / 12
          averageNormalizedEpcUsd: 0.4875, // 5.85 / 12
          ...NO_EXCLUDED_HITS,
          byMerchant: [
            { merchantId: 'asos', merchantDisplayName: 'ASOS', clicks: 5, averageEpcUsd: 0.37 },
            { merchantId: 'amazon', merchantDisplayName: 'Amazon', clicks: 4, averageEpcUsd: 0.75 },
            { merchantId: 'nike', merchantDisplayName: 'Nike', clicks: 2, averageEpcUsd: 0.5 },
            {
              merchantId: null,
              merchantDisplayName: 'Unknown merchant',
              clicks: 1,
              averageEpcUsd: 0,
            },
          ],
          byNetwork: [
            { networkId: 'awin', clicks: 4, averageEpcUsd: 0.4125 },
            { networkId: 'amazon_associates', clicks: 3, averageEpcUsd: 1 },
            // Ties: ids ascending. Passthrough clicks went through no network: no row.
            { networkId: 'cj', clicks: 2, averageEpcUsd: 0.5 },
            { networkId: 'impact', clicks: 1, averageEpcUsd: 0.2 },
          ],
          byPreset: [
            { preset: 'default', clicks: 7 },
            { preset: 'link_in_bio', clicks: 3 },
            { preset: 'long_form', clicks: 2 },
          ],
          // No conversions: the clicks beside zeros (the earnings' own suite: conversions).
          earnings: expect.objectContaining({
            clicks: 12,
            conversions: 0,
            approvedCommissionUsd: 0,
            pendingCommissionUsd: 0,
            realisedEpcUsd: 0,
          }),
        },
      });
      const { data } = response.body;
      for (const breakdown of [data.byMerchant, data.byPreset]) {
        expect(sumOf(breakdown)).toBe(data.totalClicks);
      }
      expect(sumOf(data.byNetwork)).toBe(data.totalClicks - data.passthroughClicks);
      expect(data.routedClicks + data.passthroughClicks + data.fallbackClicks).toBe(12);
    });

    it('should order ties by id, null last, in a chosen period', async () => {
      const response = await get(
        '/v1/analytics/summary?periodStart=2026-03-05&periodEnd=2026-03-08',
      ).expect(200);
      const { data } = response.body;
      expect(data).toMatchObject({
        periodStart: '2026-03-05',
        periodEnd: '2026-03-08',
        totalClicks: 4,
        routedClicks: 1,
        passthroughClicks: 2,
        fallbackClicks: 1,
        averageConfidence: 0.3875, // (0.85 + 0 + 0 + 0.7) / 4
        averageNormalizedEpcUsd: 0.25, // (0.6 + 0 + 0 + 0.4) / 4
      });
      expect(data.byMerchant).toEqual([
        { merchantId: 'nike', merchantDisplayName: 'Nike', clicks: 2, averageEpcUsd: 0.5 },
        { merchantId: 'amazon', merchantDisplayName: 'Amazon', clicks: 1, averageEpcUsd: 0 },
        { merchantId: null, merchantDisplayName: 'Unknown merchant', clicks: 1, averageEpcUsd: 0 },
      ]);
      expect(data.byNetwork).toEqual([{ networkId: 'cj', clicks: 2, averageEpcUsd: 0.5 }]);
      expect(data.byPreset).toEqual([
        { preset: 'default', clicks: 2 },
        { preset: 'link_in_bio', clicks: 1 },
        { preset: 'long_form', clicks: 1 },
      ]);
      for (const breakdown of [data.byMerchant, data.byPreset]) {
        expect(sumOf(breakdown)).toBe(4);
      }
      expect(sumOf(data.byNetwork)).toBe(4 - data.passthroughClicks);
    });

    const periods: [string, string, number][] = [
      // Day boundaries: 23:59:59.999 of periodEnd is in, 00:00 of the next day out.
      ['periodStart=2026-02-28&periodEnd=2026-02-28', '2026-02-28..2026-02-28', 1],
      ['periodStart=2026-03-01&periodEnd=2026-03-01', '2026-03-01..2026-03-01', 1],
      ['periodStart=2026-02-28&periodEnd=2026-03-01', '2026-02-28..2026-03-01', 2],
      ['periodStart=2026-03-03&periodEnd=2026-03-03', '2026-03-03..2026-03-03', 1],
      ['periodStart=2026-03-04&periodEnd=2026-03-04', '2026-03-04..2026-03-04', 1],
      // periodEnd alone: its month from the 1st.
      ['periodEnd=2026-02-28', '2026-02-01..2026-02-28', 1],
      // periodStart alone: up to today.
      ['periodStart=2026-03-10', '2026-03-10..2026-03-15', 4],
      // 366 days, inclusive, is the longest period allowed.
      ['periodStart=2025-03-15&periodEnd=2026-03-15', '2025-03-15..2026-03-15', 13],
      ['periodStart=2024-01-01&periodEnd=2024-12-31', '2024-01-01..2024-12-31', 0],
    ];

    it.each(periods)('should answer ?%s as %s with %d clicks', async (query, span, total) => {
      const response = await get(`/v1/analytics/summary?${query}`).expect(200);
      const [periodStart, periodEnd] = span.split('..');
      expect(response.body.data).toMatchObject({ periodStart, periodEnd, totalClicks: total });
    });

    it('should answer zeros and empty breakdowns for a period without clicks', async () => {
      const response = await get(
        '/v1/analytics/summary?periodStart=2025-01-01&periodEnd=2025-01-31',
      ).expect(200);
      expect(response.body.data).toEqual({
        periodStart: '2025-01-01',
        periodEnd: '2025-01-31',
        totalClicks: 0,
        routedClicks: 0,
        passthroughClicks: 0,
        fallbackClicks: 0,
        averageConfidence: 0,
        averageNormalizedEpcUsd: 0,
        ...NO_EXCLUDED_HITS,
        byMerchant: [],
        byNetwork: [],
        byPreset: [],
        earnings: {
          clicks: 0,
          conversions: 0,
          approvedCommissionUsd: 0,
          pendingCommissionUsd: 0,
          conversionRate: 0,
          realisedEpcUsd: 0,
          unattributedConversions: 0,
          byNetwork: [],
          byRegion: [],
        },
      });
    });

    it("should count only the caller's clicks", async () => {
      const theirs = await get('/v1/analytics/summary', other).expect(200);
      expect(theirs.body.data).toMatchObject({
        totalClicks: 2,
        routedClicks: 1,
        fallbackClicks: 1,
        passthroughClicks: 0,
        averageConfidence: 0.68,
        averageNormalizedEpcUsd: 8,
        byMerchant: [
          { merchantId: 'amazon', merchantDisplayName: 'Amazon', clicks: 1, averageEpcUsd: 7 },
          { merchantId: 'asos', merchantDisplayName: 'ASOS', clicks: 1, averageEpcUsd: 9 },
        ],
        byPreset: [
          { preset: 'default', clicks: 1 },
          { preset: 'long_form', clicks: 1 },
        ],
      });
      const mine = await get('/v1/analytics/summary').expect(200);
      expect(mine.body.data.totalClicks).toBe(12);
      expect(
        mine.body.data.byMerchant.find((m: { merchantId: string }) => m.merchantId === 'asos'),
      ).toMatchObject({ clicks: 5, averageEpcUsd: 0.37 });
    });
  });

  describe('validation', () => {
    // Every row has a message: jest's each passes `done` for a missing trailing argument.
    const badQueries: [string, string, RegExp][] = [
      ['clicks?from=2026-02-30', 'from', /2026-02-30 does not exist/],
      ['clicks?from=2026-1-01', 'from', /YYYY-MM-DD/],
      ['clicks?from=0000-01-01', 'from', /does not exist/],
      ['clicks?to=2026-03-01T00:00:00Z', 'to', /YYYY-MM-DD/],
      ['clicks?to=20260301', 'to', /YYYY-MM-DD/],
      ['clicks?to=2026-13-01', 'to', /does not exist/],
      ['clicks?from=2026-03-10&to=2026-03-09', 'from', /on or before to/],
      ['clicks?limit=101', 'limit', /decimal integer from 1 to 100$/],
      ['clicks?limit=0', 'limit', /decimal integer from 1 to 100$/],
      ['clicks?limit=2.5', 'limit', /integer/],
      ['clicks?page=0', 'page', /decimal integer from 1 to 100000/],
      ['clicks?page=1000000000000', 'page', /decimal integer from 1 to 100000/],
      ['clicks?page=abc', 'page', /integer/],
      ['clicks?limit=5&page=2001', 'page', /at most the 10000th click .* ends at the 10005th/],
      ['clicks?page=401', 'page', /at most the 10000th click .*narrow by from and to/],
      ['clicks?limit=100&page=100000', 'page', /at most the 10000th click/],
      ['clicks?unknown=1', 'unknown', /not a recognised field/],
      ['clicks?periodStart=2026-03-01', 'periodStart', /not a recognised field/],
      ['clicks?outcome=bogus', 'outcome', /routed, fallback, passthrough/],
      ['clicks?preset=auto', 'preset', /use default instead of auto/],
      ['clicks?preset=link-in-bio', 'preset', /use link_in_bio instead of link-in-bio/],
      ['clicks?networkId=NETWORK_01', 'networkId', /awin, cj, impact/],
      ['clicks?merchantId=', 'merchantId', /longer than or equal to 1/],
      ['summary?periodStart=2026-02-30', 'periodStart', /does not exist/],
      ['summary?periodEnd=2026-1-01', 'periodEnd', /YYYY-MM-DD/],
      ['summary?periodStart=2026-03-10&periodEnd=2026-03-09', 'periodStart', /on or before/],
      // Today is 2026-03-15, the default periodEnd.
      ['summary?periodStart=2026-03-16', 'periodStart', /on or before periodEnd \(2026-03-15\)/],
      [
        'summary?periodStart=2025-03-14&periodEnd=2026-03-15',
        'periodEnd',
        /at most 366 days.* 367/,
      ],
      ['summary?periodStart=0001-01-01&periodEnd=9999-12-31', 'periodEnd', /at most 366 days/],
      ['summary?from=2026-03-01', 'from', /not a recognised field/],
    ];

    it.each(badQueries)('should answer %s with 400 naming %s', async (query, field, message) => {
      const response = await get(`/v1/analytics/${query}`);
      expect(response.status).toBe(400);
      expect(response.body.success).toBe(false);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(response.body.error.details)).toEqual([field]);
      expect(response.body.error.details[field].join(' ')).toMatch(message);
    });
  });

  describe('access', () => {
    it('should serve a Publisher key, with nothing of anyone else', async () => {
      const publisher = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const clicks = await get('/v1/analytics/clicks', publisher).expect(200);
      expect(clicks.body.data).toEqual({
        items: [],
        pagination: {
          page: 1,
          limit: 25,
          total: 0,
          totalPages: 0,
          hasNextPage: false,
          hasPrevPage: false,
          nextCursor: null,
        },
      });
      const summary = await get('/v1/analytics/summary', publisher).expect(200);
      expect(summary.body.data).toMatchObject({ totalClicks: 0, byMerchant: [] });
    });

    it.each([['clicks'], ['summary']])(
      'should refuse /analytics/%s to a Free key with 403 PUBLISHER_TIER_REQUIRED',
      async (path) => {
        const free = await createCreatorWithKey(t.app, { plan: 'free' });
        const response = await get(`/v1/analytics/${path}`, free);
        expect(response.status).toBe(403);
        expect(response.body.error.code).toBe('PUBLISHER_TIER_REQUIRED');
      },
    );

    it('should answer 401 without a key', async () => {
      const response = await t.http.get('/v1/analytics/summary');
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
    });

    it('should document both endpoints in the OpenAPI document', async () => {
      const document = await t.http.get('/docs-json').expect(200);
      expect(Object.keys(document.body.paths)).toEqual(
        expect.arrayContaining(['/analytics/clicks', '/analytics/summary']),
      );
      const { schemas } = document.body.components;
      expect(Object.keys(schemas.ClickRecordResponse.properties)).toEqual(
        expect.arrayContaining(['recordId', 'clickedAt', 'visitorCountry', 'deviceClass']),
      );
      expect(Object.keys(schemas.AnalyticsSummaryResponse.properties)).toEqual(
        expect.arrayContaining(['byMerchant', 'byNetwork', 'byPreset', 'averageConfidence']),
      );
    });
  });
});
