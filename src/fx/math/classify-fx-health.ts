import { describeFxAge } from './describe-fx-age';

export type FxHealthStatus = 'ok' | 'stale' | 'refresh_failed' | 'missing';

/** The `fx` entry of GET /health (docs/design.md section 2: never changes the overall status). */
export interface FxHealthCheck {
  status: FxHealthStatus;
  /** Age of the rates in use, one decimal; null when there are none. */
  ageHours: number | null;
  /** When the last refresh of this process failed, while no newer rates have arrived since. */
  lastRefreshFailedAt?: string;
  lastRefreshFailureReasons?: string[];
}

export interface LatestFxRates {
  validAt: string;
  fetchedAtMs: number;
}

export interface FxRefreshFailure {
  atMs: number;
  reasons: string[];
}

/**
 * missing (no rates at all) > refresh_failed (the last attempt failed and no rates fetched
 * after it, by this or another process, replaced it) > stale > ok.
 */
export function classifyFxHealth(
  latest: LatestFxRates | null,
  lastFailure: FxRefreshFailure | null,
  nowMs: number,
  staleAfterHours: number,
): FxHealthCheck {
  const failure =
    lastFailure !== null && (latest === null || lastFailure.atMs > latest.fetchedAtMs)
      ? {
          lastRefreshFailedAt: new Date(lastFailure.atMs).toISOString(),
          lastRefreshFailureReasons: lastFailure.reasons,
        }
      : {};
  if (latest === null) return { status: 'missing', ageHours: null, ...failure };
  const age = describeFxAge(latest.validAt, nowMs, staleAfterHours);
  const status = 'lastRefreshFailedAt' in failure ? 'refresh_failed' : age.isStale ? 'stale' : 'ok';
  return { status, ageHours: age.ageHours, ...failure };
}
