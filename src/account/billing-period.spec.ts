import * as fc from 'fast-check';
import { BillingPeriod, billingPeriodOf } from './billing-period';

const at = (iso: string): number => Date.parse(iso);

describe(billingPeriodOf.name, () => {
  it.each<[string, string, BillingPeriod]>([
    [
      'mid-month',
      '2025-03-15T12:34:56.789Z',
      { id: '2025-03', start: '2025-03-01', end: '2025-03-31' },
    ],
    [
      'the first millisecond of a month',
      '2025-04-01T00:00:00.000Z',
      { id: '2025-04', start: '2025-04-01', end: '2025-04-30' },
    ],
    [
      'the last millisecond of a month',
      '2025-04-30T23:59:59.999Z',
      { id: '2025-04', start: '2025-04-01', end: '2025-04-30' },
    ],
    [
      'the last millisecond before the 1st',
      '2025-03-31T23:59:59.999Z',
      { id: '2025-03', start: '2025-03-01', end: '2025-03-31' },
    ],
    [
      'February of a leap year',
      '2024-02-10T08:00:00.000Z',
      { id: '2024-02', start: '2024-02-01', end: '2024-02-29' },
    ],
    [
      '29 February of a leap year',
      '2024-02-29T23:59:59.999Z',
      { id: '2024-02', start: '2024-02-01', end: '2024-02-29' },
    ],
    [
      'February of a non-leap year',
      '2025-02-28T23:59:59.999Z',
      { id: '2025-02', start: '2025-02-01', end: '2025-02-28' },
    ],
    [
      'February of a century non-leap year',
      '2100-02-14T00:00:00.000Z',
      { id: '2100-02', start: '2100-02-01', end: '2100-02-28' },
    ],
    [
      'February of a 400-year leap year',
      '2000-02-14T00:00:00.000Z',
      { id: '2000-02', start: '2000-02-01', end: '2000-02-29' },
    ],
    [
      'December',
      '2025-12-31T23:59:59.999Z',
      { id: '2025-12', start: '2025-12-01', end: '2025-12-31' },
    ],
    [
      'the first millisecond after December',
      '2026-01-01T00:00:00.000Z',
      { id: '2026-01', start: '2026-01-01', end: '2026-01-31' },
    ],
    [
      'a month with 30 days',
      '2025-09-30T12:00:00.000Z',
      { id: '2025-09', start: '2025-09-01', end: '2025-09-30' },
    ],
  ])('should return the UTC calendar month when the moment is %s', (_name, iso, expected) => {
    expect(billingPeriodOf(at(iso))).toEqual(expected);
  });

  it('should use UTC, not local time, when the moment is late on the last day of a month', () => {
    // 23:30 UTC on 31 January is already 1 February in UTC+1 and later zones.
    expect(billingPeriodOf(at('2025-01-31T23:30:00.000Z')).id).toBe('2025-01');
  });

  it('should contain the moment and be followed by the next period when given any moment', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9998, 11, 31) }), (nowMs) => {
        const day = new Date(nowMs).toISOString().slice(0, 10);

        const period = billingPeriodOf(nowMs);

        expect(period.id).toBe(day.slice(0, 7));
        expect(period.start <= day && day <= period.end).toBe(true);
        const nextDayMs = at(`${period.end}T00:00:00.000Z`) + 86_400_000;
        expect(billingPeriodOf(nextDayMs).start).toBe(
          new Date(nextDayMs).toISOString().slice(0, 10),
        );
        expect(billingPeriodOf(at(`${period.start}T00:00:00.000Z`) - 1).id).not.toBe(period.id);
      }),
    );
  });
});
