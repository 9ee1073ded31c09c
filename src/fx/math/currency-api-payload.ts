import {
  isPlainObject,
  ParsedRates,
  ParseFailure,
  parseFailure,
  pickSupportedRates,
  quoteValue,
} from './fx-payload';

/**
 * Reads the fawazahmed0 "currency-api" format (the fallback upstream,
 * `…/v1/currencies/usd.json`): `{"date":"2026-11-20","usd":{"eur":0.8652,"inr":88.71,…}}`,
 * lowercase codes, the base named by the key of the rate table. The day is the only
 * timestamp it gives, so the rates count as valid from 00:00 UTC that day. Never throws.
 */
export function parseCurrencyApiPayload(body: unknown): ParsedRates | ParseFailure {
  if (!isPlainObject(body)) return parseFailure('payload is not a JSON object');
  const validAt = dayStartIso(body.date);
  if (validAt === null) {
    return parseFailure(`date is ${quoteValue(body.date)}, expected YYYY-MM-DD`);
  }
  const table = body.usd;
  if (!isPlainObject(table)) {
    const otherBase = Object.keys(body).find((key) => key !== 'date' && isPlainObject(body[key]));
    return parseFailure(
      otherBase === undefined
        ? 'usd rate table is missing or not an object'
        : `base is "${otherBase.toUpperCase()}", expected "USD"`,
    );
  }
  const picked = pickSupportedRates(table, (code) => code.toLowerCase());
  if (!picked.ok) return picked;
  return { ok: true, validAt, rates: picked.rates };
}

function dayStartIso(value: unknown): string | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00.000Z`);
  if (Number.isNaN(ms)) return null;
  const iso = new Date(ms).toISOString();
  // Date.parse rolls 2026-02-30 over to March; a real day maps back to itself.
  return iso.startsWith(value) ? iso : null;
}
