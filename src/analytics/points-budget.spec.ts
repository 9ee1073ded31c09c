import fc from 'fast-check';
import { PointsBudget } from './points-budget';

describe(PointsBudget.name, () => {
  it('should admit calls while it is not in debt, then make them wait until it is repaid', () => {
    const budget = new PointsBudget(1_000, 0);

    expect(budget.waitSecondsAt(0)).toBe(0);
    budget.charge(3_500, 0);
    expect(budget.waitSecondsAt(0)).toBe(3);
    expect(budget.waitSecondsAt(2_400)).toBe(1);
    expect(budget.waitSecondsAt(2_500)).toBe(0);
  });

  it('should keep no more than one second of unused points', () => {
    const budget = new PointsBudget(1_000, 0);

    budget.charge(1_000, 60_000);

    expect(budget.waitSecondsAt(60_000)).toBe(0);
    budget.charge(1, 60_000);
    expect(budget.waitSecondsAt(60_000)).toBe(1);
  });

  it('should serve, over any span, at most the rate times the span plus one second and one call', () => {
    const calls = fc.array(
      fc.record({
        afterMs: fc.integer({ min: 0, max: 500 }),
        points: fc.integer({ min: 1, max: 10_000 }),
      }),
      { maxLength: 200 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 50_000 }), calls, (rate, sequence) => {
        const budget = new PointsBudget(rate, 0);
        let nowMs = 0;
        let served = 0;
        let largest = 0;
        for (const { afterMs, points } of sequence) {
          nowMs += afterMs;
          if (budget.waitSecondsAt(nowMs) > 0) continue;
          budget.charge(points, nowMs);
          served += points;
          largest = Math.max(largest, points);
        }
        expect(served).toBeLessThanOrEqual((rate * nowMs) / 1000 + rate + largest);
      }),
    );
  });
});
