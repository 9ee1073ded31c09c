import { ulid } from 'ulid';
import { insertClicks } from '../factories/click.factory';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

describe('Analytics time series (e2e)', () => {
  let t: TestApp;
  let creator: TestCreator;
  let api: ApiClient;
  const linkA = ulid();
  const linkB = ulid();

  beforeAll(async () => {
    // The answers' shapes and bounds, not the points budget (its own test below): one
    // 10,000-point answer would otherwise hold the next calls back a tenth of a second.
    t = await startTestApp({
      PROBES_ENABLED: 'false',
      CLICK_CONSUMER_ENABLED: 'false',
      ANALYTICS_POINTS_PER_SECOND: '100000000',
    });
    creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    api = createApiClient(t, creator);
    await insertClicks(t.app, creator.creatorId, [
      { clickedAt: '2026-03-01T00:00:00.000Z', linkId: linkA, visitorCountry: 'US' },
      { clickedAt: '2026-03-01T10:30:00.000Z', linkId: linkA, visitorCountry: 'US' },
      { clickedAt: '2026-03-01T10:45:00.000Z', linkId: linkB, visitorCountry: 'IN' },
      { clickedAt: '2026-03-03T23:59:59.999Z', linkId: linkB, visitorCountry: null },
      { clickedAt: '2026-03-04T00:00:00.000Z', linkId: linkA, visitorCountry: 'GB' },
      // Outside every range asked below.
      { clickedAt: '2026-02-28T23:59:59.999Z', linkId: linkA, visitorCountry: 'US' },
      // A test click: never in the live series.
      { clickedAt: '2026-03-02T12:00:00.000Z', linkId: linkA, environment: 'test' },
    ]);
  });
  afterAll(() => t.close());

  const series = async (query: string) =>
    (await api.get(`/v1/analytics/timeseries?${query}`).expect(200)).body.data as {
      series: {
        key: string | null;
        buckets: { start: string; clicks: number; uniqueVisitors?: number }[];
      }[];
    };
  const clicksListed = async (query: string): Promise<number> =>
    (await api.get(`/v1/analytics/clicks?${query}`).expect(200)).body.data.pagination
      .total as number;

  it('should count clicks per UTC day, zero-filled, summing to the clicks list', async () => {
    const answer = await series('interval=day&from=2026-03-01&to=2026-03-05');

    expect(answer).toMatchObject({
      interval: 'day',
      from: '2026-03-01',
      to: '2026-03-05',
      groupBy: 'none',
    });
    expect(answer.series).toEqual([
      {
        key: null,
        buckets: [
          // Clicks written straight to PostgreSQL: no visitor went through the edge.
          { start: '2026-03-01T00:00:00.000Z', clicks: 3, uniqueVisitors: 0 },
          { start: '2026-03-02T00:00:00.000Z', clicks: 0, uniqueVisitors: 0 },
          { start: '2026-03-03T00:00:00.000Z', clicks: 1, uniqueVisitors: 0 },
          { start: '2026-03-04T00:00:00.000Z', clicks: 1, uniqueVisitors: 0 },
          { start: '2026-03-05T00:00:00.000Z', clicks: 0, uniqueVisitors: 0 },
        ],
      },
    ]);
    const total = answer.series[0].buckets.reduce((sum, bucket) => sum + bucket.clicks, 0);
    expect(total).toBe(await clicksListed('from=2026-03-01&to=2026-03-05'));
  });

  it('should count per hour, one series per country, and filter by link', async () => {
    const byHour = await series('interval=hour&from=2026-03-01&to=2026-03-01&groupBy=country');
    const perKey = byHour.series.map((s) => [
      s.key,
      s.buckets.filter((b) => b.clicks > 0).map((b) => [b.start.slice(11, 13), b.clicks]),
    ]);
    expect(perKey).toEqual([
      ['IN', [['10', 1]]],
      [
        'US',
        [
          ['00', 1],
          ['10', 1],
        ],
      ],
    ]);
    expect(byHour.series[0].buckets).toHaveLength(24);
    // Unique visitors only by day and ungrouped: no sketch per hour or per group.
    const ungroupedHours = await series('interval=hour&from=2026-03-01&to=2026-03-01');
    const groupedDays = await series('interval=day&from=2026-03-01&to=2026-03-01&groupBy=device');
    for (const bucket of [...ungroupedHours.series, ...groupedDays.series].flatMap(
      (s) => s.buckets,
    )) {
      expect(bucket).not.toHaveProperty('uniqueVisitors');
    }

    const oneLink = await series(`interval=day&from=2026-03-01&to=2026-03-04&linkId=${linkB}`);
    expect(oneLink.series[0].buckets.map((b) => b.clicks)).toEqual([1, 0, 1, 0]);
  });

  it('should refuse more than 1,000 buckets with 400 naming the limit', async () => {
    const response = await api.get(
      '/v1/analytics/timeseries?interval=hour&from=2026-01-01&to=2026-03-01',
    );

    expect(response.status).toBe(400);
    expect(response.body.error.details.to[0]).toContain('at most 1000 buckets');
  });

  describe('points bound', () => {
    // 1,000 days by day: room for 10 series of 10,000 points.
    const THOUSAND_DAYS = 'interval=day&from=2024-03-02&to=2026-11-26';
    const COUNTRIES = ['AE', 'BR', 'DE', 'FR', 'GB', 'IN', 'JP', 'MX', 'NG', 'US', 'ZA'];

    async function creatorWithCountries(countries: string[]): Promise<ApiClient> {
      const owner = await createCreatorWithKey(t.app, { plan: 'publisher' });
      await insertClicks(
        t.app,
        owner.creatorId,
        countries.map((visitorCountry, day) => ({
          clickedAt: `2026-03-${String(day + 1).padStart(2, '0')}T12:00:00.000Z`,
          visitorCountry,
        })),
      );
      return createApiClient(t, owner);
    }

    it('should answer as many series as fit in 10,000 points', async () => {
      const tenCountries = await creatorWithCountries(COUNTRIES.slice(0, 10));
      const response = await tenCountries
        .get(`/v1/analytics/timeseries?${THOUSAND_DAYS}&groupBy=country`)
        .expect(200);

      const answer = response.body.data as { series: { key: string; buckets: unknown[] }[] };
      expect(answer.series.map((s) => s.key)).toEqual(COUNTRIES.slice(0, 10));
      expect(answer.series.every((s) => s.buckets.length === 1_000)).toBe(true);
    });

    it('should refuse one series more with 400 naming the limit and how to narrow', async () => {
      const elevenCountries = await creatorWithCountries(COUNTRIES);
      const response = await elevenCountries.get(
        `/v1/analytics/timeseries?${THOUSAND_DAYS}&groupBy=country`,
      );

      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details.groupBy[0]).toMatch(
        /at most 10000 points \(series × buckets\); 2024-03-02 to 2026-11-26 by day is 1000 buckets, room for 10 series, and more than 10 countries have clicks: shorten the range, narrow by linkId/,
      );
      // Each series fits on its own.
      const oneLink = await elevenCountries.get(`/v1/analytics/timeseries?${THOUSAND_DAYS}`);
      expect(oneLink.status).toBe(200);
    });

    it('should suggest counting by day when hours make the answer too large', async () => {
      const elevenCountries = await creatorWithCountries(COUNTRIES);
      const response = await elevenCountries.get(
        '/v1/analytics/timeseries?interval=hour&from=2026-03-01&to=2026-04-10&groupBy=country',
      );

      expect(response.status).toBe(400);
      expect(response.body.error.details.groupBy[0]).toMatch(
        /984 buckets, room for 10 series.*shorten the range, count by day/,
      );
    });
  });

  it('should answer 503 ANALYTICS_BUSY with Retry-After once the server has sent its points for now', async () => {
    const metered = await startTestApp({
      PROBES_ENABLED: 'false',
      CLICK_CONSUMER_ENABLED: 'false',
      ANALYTICS_POINTS_PER_SECOND: '100',
    });
    try {
      const dashboard = createApiClient(metered, creator);
      // 1,000 days: ten seconds of this server's points, reserved when the call is admitted.
      const large = 'interval=day&from=2023-06-05&to=2026-02-28';

      await dashboard.get(`/v1/analytics/timeseries?${large}`).expect(200);
      const refused = await dashboard.get('/v1/analytics/timeseries?from=2026-03-01&to=2026-03-01');

      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('ANALYTICS_BUSY');
      expect(refused.body.error.message).toContain('ANALYTICS_POINTS_PER_SECOND');
      const wait = Number(refused.headers['retry-after']);
      expect(wait).toBeGreaterThanOrEqual(8);
      // Up to twice the budget's wait (ten seconds of points), drawn per caller, and said the
      // same in the message: callers refused together are not sent back together.
      expect(wait).toBeLessThanOrEqual(20);
      expect(refused.body.error.message).toContain(`Retry in ${wait} seconds`);
      const waits = new Set<string>();
      for (let i = 0; i < 12; i++) {
        const again = await dashboard.get('/v1/analytics/timeseries?from=2026-03-01&to=2026-03-01');
        waits.add(String(again.headers['retry-after']));
      }
      expect(waits.size).toBeGreaterThan(1);
    } finally {
      await metered.close();
    }
  });

  it.each([
    ['interval=week', 'interval'],
    ['groupBy=city', 'groupBy'],
    ['from=2026-02-30', 'from'],
    ['from=2026-03-05&to=2026-03-01', 'from'],
  ])('should refuse %s with 400 naming %s', async (query, field) => {
    const response = await api.get(`/v1/analytics/timeseries?${query}`);

    expect(response.status).toBe(400);
    expect(Object.keys(response.body.error.details)).toEqual([field]);
  });
});
