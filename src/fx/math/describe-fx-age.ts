const HOUR_MS = 3_600_000;

/** The confidence penalty of a routing decision made on stale FX data (SPEC, FX rates). */
const STALE_FX_CONFIDENCE_PENALTY = -0.02;

export interface FxAge {
  /** Hours since the rates were valid, one decimal; 0 for a timestamp in the future. */
  ageHours: number;
  /** Strictly older than staleAfterHours: exactly at the limit is still fresh. */
  isStale: boolean;
  /** -0.02 when stale, else 0. */
  confidencePenalty: number;
}

/** Strictly older than staleAfterHours at `nowMs`: exactly at the limit is still fresh. */
export function isFxStale(validAtMs: number, nowMs: number, staleAfterHours: number): boolean {
  return nowMs - validAtMs > staleAfterHours * HOUR_MS;
}

/**
 * How old a set of rates is at `nowMs`, judged on the upstream's own timestamp (not on
 * when we fetched it). Throws RangeError on a timestamp that is not a date.
 */
export function describeFxAge(timestampIso: string, nowMs: number, staleAfterHours: number): FxAge {
  const validAtMs = Date.parse(timestampIso);
  if (Number.isNaN(validAtMs)) throw new RangeError(`Not a timestamp: ${timestampIso}`);
  const ageMs = nowMs - validAtMs;
  const isStale = isFxStale(validAtMs, nowMs, staleAfterHours);
  return {
    ageHours: Math.round((Math.max(0, ageMs) / HOUR_MS) * 10) / 10,
    isStale,
    confidencePenalty: isStale ? STALE_FX_CONFIDENCE_PENALTY : 0,
  };
}
