import * as fc from 'fast-check';
import { CurrencyCode, FxRates, SUPPORTED_CURRENCIES } from './fx-snapshot';
import { toUsd } from './to-usd';

const RATES = { USD: 1, EUR: 0.8, INR: 88.5, JPY: 156.25, VND: 26_000 } as FxRates;

describe(toUsd.name, () => {
  it.each<[number, CurrencyCode, number]>([
    [10, 'USD', 10],
    [8, 'EUR', 10],
    [177, 'INR', 2],
    [1562.5, 'JPY', 10],
    [0, 'VND', 0],
    [-40, 'EUR', -50],
  ])('should convert %d %s to %d USD by dividing by the rate', (amount, currency, expected) => {
    expect(toUsd(amount, currency, { rates: RATES })).toBeCloseTo(expected, 10);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])(
    'should throw a RangeError when the rate is %d',
    (rate) => {
      expect(() => toUsd(1, 'EUR', { rates: { ...RATES, EUR: rate } })).toThrow(RangeError);
    },
  );

  it('should give back x for x * rate in any currency at any positive rate', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        fc.constantFrom(...SUPPORTED_CURRENCIES),
        (x, rate, currency) => {
          const rates = { ...RATES, [currency]: rate };

          const usd = toUsd(x * rate, currency, { rates });

          expect(Math.abs(usd - x)).toBeLessThanOrEqual(Math.max(1e-9, Math.abs(x) * 1e-12));
        },
      ),
    );
  });
});
