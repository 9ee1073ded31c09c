import * as fc from 'fast-check';
import { CurrencyCode, FxRates, SUPPORTED_CURRENCIES } from './fx-snapshot';
import { mergeFxRates } from './merge-fx-rates';

const fullRates = (value: (code: CurrencyCode, index: number) => number): FxRates =>
  Object.fromEntries(
    SUPPORTED_CURRENCIES.map((code, index) => [code, code === 'USD' ? 1 : value(code, index)]),
  ) as FxRates;

const PREVIOUS = fullRates((_code, index) => 10 + index);
const FRESH = fullRates((_code, index) => 100 + index);

function without(rates: FxRates, ...codes: CurrencyCode[]): Partial<FxRates> {
  const copy: Partial<FxRates> = { ...rates };
  for (const code of codes) delete copy[code];
  return copy;
}

describe(mergeFxRates.name, () => {
  it.each<[string, Partial<FxRates>, Partial<FxRates> | null, Partial<FxRates>, CurrencyCode[]]>([
    ['the payload is complete', FRESH, PREVIOUS, FRESH, []],
    ['the payload is complete and there are no previous rates', FRESH, null, FRESH, []],
    [
      'the payload lacks two currencies the previous rates have',
      without(FRESH, 'VND', 'NGN'),
      PREVIOUS,
      { ...FRESH, NGN: PREVIOUS.NGN, VND: PREVIOUS.VND },
      ['NGN', 'VND'],
    ],
    ['the payload lacks USD', without(FRESH, 'USD'), null, FRESH, []],
    ['the payload says USD is 2', { ...FRESH, USD: 2 }, null, FRESH, []],
  ])('should complete the rates when %s', (_case, fresh, previous, rates, carriedOver) => {
    expect(mergeFxRates(fresh, previous)).toEqual({ ok: true, rates, carriedOver });
  });

  it.each<[string, Partial<FxRates>, Partial<FxRates> | null, RegExp]>([
    ['there are no previous rates', without(FRESH, 'ARS'), null, /missing ARS, with no previous/],
    [
      'the previous rates lack it too',
      without(FRESH, 'ARS', 'TWD'),
      without(PREVIOUS, 'TWD'),
      /missing TWD/,
    ],
    ['the previous rate is not usable', without(FRESH, 'EGP'), { ...PREVIOUS, EGP: 0 }, /EGP/],
  ])('should refuse a payload missing a currency when %s', (_case, fresh, previous, reason) => {
    expect(mergeFxRates(fresh, previous)).toEqual({
      ok: false,
      reason: expect.stringMatching(reason),
    });
  });

  it('should carry over exactly the currencies the payload lacks, whichever they are', () => {
    fc.assert(
      fc.property(fc.subarray([...SUPPORTED_CURRENCIES]), (dropped) => {
        const merged = mergeFxRates(without(FRESH, ...dropped), PREVIOUS);

        expect(merged.ok).toBe(true);
        if (!merged.ok) return;
        expect(merged.carriedOver).toEqual(dropped.filter((code) => code !== 'USD'));
        for (const code of SUPPORTED_CURRENCIES) {
          const expected =
            code === 'USD' ? 1 : dropped.includes(code) ? PREVIOUS[code] : FRESH[code];
          expect(merged.rates[code]).toBe(expected);
        }
      }),
    );
  });
});
