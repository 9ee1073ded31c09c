import * as fc from 'fast-check';
import {
  bucketCountOf,
  bucketStartsOf,
  MAX_TIMESERIES_BUCKETS,
  MAX_TIMESERIES_POINTS,
  maxSeriesOf,
  timeseriesPeriodOf,
  zeroFilledSeries,
} from './time-buckets';

describe(bucketStartsOf.name, () => {
  it('should cover whole UTC days, both ends inclusive', () => {
    expect(bucketStartsOf('day', '2026-02-27', '2026-03-01').map((ms) => new Date(ms))).toEqual([
      new Date('2026-02-27T00:00:00Z'),
      new Date('2026-02-28T00:00:00Z'),
      new Date('2026-03-01T00:00:00Z'),
    ]);
    expect(bucketStartsOf('hour', '2026-03-01', '2026-03-01')).toHaveLength(24);
  });

  it('should count as many buckets as it builds', () => {
    const day = fc
      .integer({ min: 0, max: 400 })
      .map((n) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
    fc.assert(
      fc.property(fc.constantFrom('hour' as const, 'day' as const), day, day, (interval, a, b) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        expect(bucketStartsOf(interval, from, to)).toHaveLength(bucketCountOf(interval, from, to));
      }),
    );
  });
});

describe(timeseriesPeriodOf.name, () => {
  const now = Date.parse('2026-11-25T13:00:00Z');

  it.each([
    ['day', {}, { from: '2026-10-27', to: '2026-11-25' }],
    ['hour', {}, { from: '2026-11-24', to: '2026-11-25' }],
    ['day', { to: '2026-03-10' }, { from: '2026-02-09', to: '2026-03-10' }],
    ['hour', { from: '2026-11-01', to: '2026-11-02' }, { from: '2026-11-01', to: '2026-11-02' }],
  ] as const)('should read %s %j as %j', (interval, requested, expected) => {
    expect(timeseriesPeriodOf(interval, requested, now)).toEqual(expected);
  });
});

describe(zeroFilledSeries.name, () => {
  const starts = bucketStartsOf('day', '2026-03-01', '2026-03-03');
  const day = (date: string) => Date.parse(`${date}T00:00:00Z`);

  it('should zero-fill one ungrouped series and keep every click', () => {
    const series = zeroFilledSeries(
      starts,
      [
        { startMs: day('2026-03-01'), key: 'US', clicks: 2 },
        { startMs: day('2026-03-01'), key: 'IN', clicks: 1 },
        { startMs: day('2026-03-03'), key: null, clicks: 4 },
      ],
      false,
    );
    expect(series).toEqual([
      {
        key: null,
        buckets: [
          { start: '2026-03-01T00:00:00.000Z', clicks: 3 },
          { start: '2026-03-02T00:00:00.000Z', clicks: 0 },
          { start: '2026-03-03T00:00:00.000Z', clicks: 4 },
        ],
      },
    ]);
  });

  it('should give each group its own series, keys ascending and null last', () => {
    const series = zeroFilledSeries(
      starts,
      [
        { startMs: day('2026-03-02'), key: null, clicks: 1 },
        { startMs: day('2026-03-02'), key: 'US', clicks: 2 },
        { startMs: day('2026-03-01'), key: 'IN', clicks: 5 },
      ],
      true,
    );
    expect(series.map((s) => [s.key, s.buckets.map((b) => b.clicks)])).toEqual([
      ['IN', [5, 0, 0]],
      ['US', [0, 2, 0]],
      [null, [0, 1, 0]],
    ]);
  });

  it('should answer one empty series when there are no clicks', () => {
    expect(zeroFilledSeries(starts, [], true)).toEqual([
      {
        key: null,
        buckets: starts.map((ms) => ({ start: new Date(ms).toISOString(), clicks: 0 })),
      },
    ]);
  });
});

describe(maxSeriesOf.name, () => {
  it.each([
    [1_000, 10],
    [984, 10],
    [720, 13],
    [30, 333],
    [1, 10_000],
  ])('should fit %i buckets with %i series', (buckets, series) => {
    expect(maxSeriesOf(buckets)).toBe(series);
  });

  it('should be the most series whose points stay within the limit, and at least 10', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_TIMESERIES_BUCKETS }), (buckets) => {
        const series = maxSeriesOf(buckets);
        expect(series * buckets).toBeLessThanOrEqual(MAX_TIMESERIES_POINTS);
        expect((series + 1) * buckets).toBeGreaterThan(MAX_TIMESERIES_POINTS);
        expect(series).toBeGreaterThanOrEqual(10);
      }),
    );
  });
});
