import fc from 'fast-check';
import { PointsBudget } from './points-budget';

describe(PointsBudget.name, () => {
  it('should admit calls while it is not in debt, then make them wait until it is repaid', () => {
    const budget = new PointsBudget(1_000, 100, 0);

    expect(budget.reserve(3_600, 0)).toBe(0);
    expect(budget.reserve(1, 0)).toBe(4);
    expect(budget.reserve(1, 2_400)).toBe(2);
    expect(budget.reserve(1, 3_499)).toBe(1);
    expect(budget.reserve(1, 3_500)).toBe(0);
  });

  it('should take back what a call did not use', () => {
    const budget = new PointsBudget(1_000, 100, 0);

    expect(budget.reserve(2_000, 0)).toBe(0);
    budget.release(1_950, 0);

    expect(budget.reserve(10, 0)).toBe(0);
  });

  it('should keep no more unused points than its capacity', () => {
    const budget = new PointsBudget(1_000, 100, 0);

    budget.release(5_000, 60_000);

    expect(budget.reserve(101, 60_000)).toBe(0);
    expect(budget.reserve(1, 60_000)).toBe(1);
  });

  const calls = fc.array(
    fc.record({
      afterMs: fc.integer({ min: 0, max: 500 }),
      reserved: fc.integer({ min: 1, max: 10_000 }),
      usedShare: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
    { maxLength: 200 },
  );

  it('should serve, over any span, at most the rate times the span plus the bucket and one call', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 50_000 }), calls, (rate, sequence) => {
        const budget = new PointsBudget(rate, rate / 10, 0);
        let nowMs = 0;
        let served = 0;
        let largest = 0;
        for (const { afterMs, reserved, usedShare } of sequence) {
          nowMs += afterMs;
          if (budget.reserve(reserved, nowMs) > 0) continue;
          const used = Math.floor(reserved * usedShare);
          budget.release(reserved - used, nowMs);
          served += used;
          largest = Math.max(largest, reserved);
        }
        expect(served).toBeLessThanOrEqual((rate * nowMs) / 1000 + rate / 10 + largest);
      }),
    );
  });

  it('should never have more in flight than the bucket and one call', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 50_000 }), calls, (rate, sequence) => {
        const budget = new PointsBudget(rate, rate / 10, 0);
        // Calls arrive together and are built later: what is reserved but not yet released.
        let inFlight = 0;
        let largest = 0;
        for (const { reserved } of sequence) {
          if (budget.reserve(reserved, 0) > 0) continue;
          inFlight += reserved;
          largest = Math.max(largest, reserved);
          expect(inFlight).toBeLessThanOrEqual(rate / 10 + largest);
        }
      }),
    );
  });
});
