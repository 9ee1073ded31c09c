import { CurrencyCode, SUPPORTED_CURRENCIES } from './fx-snapshot';

/** What a parser read from one upstream payload: rates per 1 USD, perhaps not all 23. */
export interface ParsedRates {
  ok: true;
  /** When the upstream says the rates were valid, ISO 8601 UTC. */
  validAt: string;
  rates: Partial<Record<CurrencyCode, number>>;
}

/** Why a payload was refused; the reason quotes the payload, never the URL it came from. */
export interface ParseFailure {
  ok: false;
  reason: string;
}

export const parseFailure = (reason: string): ParseFailure => ({ ok: false, reason });

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short rendering of an upstream value for a failure reason. */
export function quoteValue(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

export const isPositiveFinite = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0;

/**
 * Picks our currencies out of an upstream rate table (other currencies are ignored). A bad
 * value for one of ours refuses the whole payload: a feed that sends garbage for one rate is
 * not trusted for the others. A USD base means USD, when listed, is exactly 1.
 */
export function pickSupportedRates(
  table: Record<string, unknown>,
  keyOf: (code: CurrencyCode) => string,
): { ok: true; rates: Partial<Record<CurrencyCode, number>> } | ParseFailure {
  const rates: Partial<Record<CurrencyCode, number>> = {};
  for (const code of SUPPORTED_CURRENCIES) {
    const key = keyOf(code);
    if (!Object.hasOwn(table, key)) continue;
    const value = table[key];
    if (!isPositiveFinite(value)) {
      return parseFailure(`rate of ${code} is ${quoteValue(value)}, not a positive number`);
    }
    rates[code] = value;
  }
  if (rates.USD !== undefined && rates.USD !== 1) {
    return parseFailure(`rate of USD is ${rates.USD}, expected 1 for a USD base`);
  }
  if (Object.keys(rates).every((code) => code === 'USD')) {
    return parseFailure('rates hold none of the supported currencies');
  }
  return { ok: true, rates };
}
