import { CurrencyCode, FxSnapshot } from './fx-snapshot';

/**
 * Converts an amount in a local currency to USD: `local / rate`, where the rate is units of
 * the local currency per 1 USD (SPEC: normalized_epc_usd = epc_local / rate(currency)).
 * Throws RangeError on a rate that is not a positive number (snapshots never hold one).
 */
export function toUsd(
  amountLocal: number,
  currency: CurrencyCode,
  snapshot: Pick<FxSnapshot, 'rates'>,
): number {
  const rate = snapshot.rates[currency];
  if (!(Number.isFinite(rate) && rate > 0)) {
    throw new RangeError(`No usable FX rate for ${currency}: ${rate}`);
  }
  return amountLocal / rate;
}
