import * as fc from 'fast-check';
import {
  describeAnalyticsDateProblem,
  instantRangeOf,
  spanDaysOf,
  summaryPeriodOf,
  utcDateOf,
} from './analytics-dates';

describe(describeAnalyticsDateProblem.name, () => {
  it.each([['2026-03-15'], ['2024-02-29'], ['2000-02-29'], ['0001-01-01'], ['9999-12-31']])(
    'should accept %s',
    (value) => {
      expect(describeAnalyticsDateProblem(value)).toBeNull();
    },
  );

  it.each<[unknown, RegExp]>([
    ['2026-02-30', /2026-02-30 does not exist/],
    ['2025-02-29', /does not exist/],
    ['1900-02-29', /does not exist/],
    ['2026-04-31', /does not exist/],
    ['2026-13-01', /does not exist/],
    ['2026-00-10', /does not exist/],
    ['0000-01-01', /does not exist/],
    ['2026-1-01', /YYYY-MM-DD/],
    ['20260301', /YYYY-MM-DD/],
    ['2026-03-01T00:00:00Z', /YYYY-MM-DD/],
    [' 2026-03-01', /YYYY-MM-DD/],
    ['', /YYYY-MM-DD/],
    [['2026-03-01'], /YYYY-MM-DD/],
    [undefined, /YYYY-MM-DD/],
  ])('should refuse %p', (value, problem) => {
    expect(describeAnalyticsDateProblem(value)).toMatch(problem);
  });
});

describe(instantRangeOf.name, () => {
  it('should cover whole UTC days, the end exclusive at the next midnight', () => {
    expect(instantRangeOf('2026-03-01', '2026-03-31')).toEqual({
      fromInclusive: new Date('2026-03-01T00:00:00.000Z'),
      toExclusive: new Date('2026-04-01T00:00:00.000Z'),
    });
  });

  it('should leave a missing end open', () => {
    expect(instantRangeOf(undefined, '2026-12-31')).toEqual({
      toExclusive: new Date('2027-01-01T00:00:00.000Z'),
    });
    expect(instantRangeOf()).toEqual({});
  });
});

describe(spanDaysOf.name, () => {
  it.each([
    ['2026-03-15', '2026-03-15', 1],
    ['2026-03-01', '2026-03-31', 31],
    ['2024-01-01', '2024-12-31', 366],
    ['2025-03-15', '2026-03-15', 366],
    ['2025-03-14', '2026-03-15', 367],
  ])('should count %s to %s as %d days', (periodStart, periodEnd, days) => {
    expect(spanDaysOf({ periodStart, periodEnd })).toBe(days);
  });

  it('should count every day of a period exactly once', () => {
    const day = fc.date({
      min: new Date('1970-01-01'),
      max: new Date('2999-12-31'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 800 }), (start, extraDays) => {
        const periodStart = utcDateOf(start);
        const periodEnd = utcDateOf(start.getTime() + extraDays * 86_400_000);
        const range = instantRangeOf(periodStart, periodEnd);
        expect(spanDaysOf({ periodStart, periodEnd })).toBe(extraDays + 1);
        expect(utcDateOf(range.toExclusive!.getTime() - 1)).toBe(periodEnd);
        expect(utcDateOf(range.fromInclusive!)).toBe(periodStart);
      }),
    );
  });
});

describe(summaryPeriodOf.name, () => {
  const now = Date.parse('2026-03-15T23:59:59.999Z');

  it.each<[string, { periodStart?: string; periodEnd?: string }, string, string]>([
    ['nothing: this month up to today', {}, '2026-03-01', '2026-03-15'],
    ['only an end: its month', { periodEnd: '2026-02-10' }, '2026-02-01', '2026-02-10'],
    ['only a start: up to today', { periodStart: '2025-12-24' }, '2025-12-24', '2026-03-15'],
    ['both', { periodStart: '2026-01-02', periodEnd: '2026-01-03' }, '2026-01-02', '2026-01-03'],
  ])('should resolve %s', (_name, requested, periodStart, periodEnd) => {
    expect(summaryPeriodOf(requested, now)).toEqual({ periodStart, periodEnd });
  });

  it('should take today in UTC on the first millisecond of a month', () => {
    expect(summaryPeriodOf({}, Date.parse('2026-04-01T00:00:00.000Z'))).toEqual({
      periodStart: '2026-04-01',
      periodEnd: '2026-04-01',
    });
  });
});
