import {
  isPlainObject,
  ParsedRates,
  ParseFailure,
  parseFailure,
  pickSupportedRates,
  quoteValue,
} from './fx-payload';

/** Later than this, `new Date(ms)` is invalid (ECMAScript's time range). */
const MAX_UNIX_SECONDS = 8.64e12;

/**
 * Reads the open.er-api.com v6 format (the primary upstream, `GET /v6/latest/USD`):
 * `{"result":"success","base_code":"USD","time_last_update_unix":1763596802,"rates":{"USD":1,…}}`.
 * Refuses an error answer (`"result":"error"`), another base, a missing timestamp, a wrong
 * shape or a bad rate, with the reason. Never throws.
 */
export function parseOpenErApiPayload(body: unknown): ParsedRates | ParseFailure {
  if (!isPlainObject(body)) return parseFailure('payload is not a JSON object');
  if (body.result !== 'success') {
    const errorType =
      body['error-type'] === undefined ? '' : ` (${quoteValue(body['error-type'])})`;
    return parseFailure(`result is ${quoteValue(body.result)}${errorType}, expected "success"`);
  }
  if (body.base_code !== 'USD') {
    return parseFailure(`base is ${quoteValue(body.base_code)}, expected "USD"`);
  }
  const unixSeconds = body.time_last_update_unix;
  if (
    typeof unixSeconds !== 'number' ||
    !Number.isInteger(unixSeconds) ||
    unixSeconds <= 0 ||
    unixSeconds > MAX_UNIX_SECONDS
  ) {
    return parseFailure(
      `time_last_update_unix is ${quoteValue(unixSeconds)}, not a Unix time in seconds`,
    );
  }
  if (!isPlainObject(body.rates)) return parseFailure('rates is missing or not an object');
  const picked = pickSupportedRates(body.rates, (code) => code);
  if (!picked.ok) return picked;
  return { ok: true, validAt: new Date(unixSeconds * 1000).toISOString(), rates: picked.rates };
}
