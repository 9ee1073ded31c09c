import { ParseFailure, parseFailure, isPositiveFinite } from './fx-payload';
import { CurrencyCode, FxRates, SUPPORTED_CURRENCIES } from './fx-snapshot';

export interface MergedRates {
  ok: true;
  rates: FxRates;
  /** Currencies the payload lacked, kept from the previous rates, in SUPPORTED_CURRENCIES order. */
  carriedOver: CurrencyCode[];
}

/**
 * Completes fresh rates to all 23 currencies. A currency the payload lacks is carried over
 * from the previous rates; when those lack it too, the payload is refused (routing must be
 * able to price every storefront). USD is always 1, whatever either side says.
 */
export function mergeFxRates(
  fresh: Partial<Record<CurrencyCode, number>>,
  previous: Partial<Record<CurrencyCode, number>> | null,
): MergedRates | ParseFailure {
  const rates = { USD: 1 } as FxRates;
  const carriedOver: CurrencyCode[] = [];
  const missing: CurrencyCode[] = [];
  for (const code of SUPPORTED_CURRENCIES) {
    if (code === 'USD') continue;
    const freshRate = fresh[code];
    const previousRate = previous?.[code];
    if (isPositiveFinite(freshRate)) {
      rates[code] = freshRate;
    } else if (isPositiveFinite(previousRate)) {
      rates[code] = previousRate;
      carriedOver.push(code);
    } else {
      missing.push(code);
    }
  }
  if (missing.length > 0) {
    return parseFailure(`missing ${missing.join(', ')}, with no previous rate to carry over`);
  }
  return { ok: true, rates, carriedOver };
}
