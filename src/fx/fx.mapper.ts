import { FxRatesResponse } from './fx-rates.response';
import { FxAge } from './math/describe-fx-age';
import { FxRates, FxSnapshot, SUPPORTED_CURRENCIES } from './math/fx-snapshot';

export function toFxRatesResponse(
  snapshot: FxSnapshot,
  age: FxAge,
  staleAfterHours: number,
): FxRatesResponse {
  return {
    base: snapshot.base,
    // In the spec's currency order (jsonb keeps its own key order).
    rates: Object.fromEntries(
      SUPPORTED_CURRENCIES.map((code) => [code, snapshot.rates[code]]),
    ) as FxRates,
    timestamp: snapshot.timestamp,
    isStale: age.isStale,
    ageHours: age.ageHours,
    staleBeyondHours: staleAfterHours,
    confidencePenalty: age.confidencePenalty,
    source: snapshot.source,
  };
}
