/**
 * Exact sliding-window log arithmetic, shared by the in-process store and mirrored by the
 * Redis Lua script. A request is admitted when every window has fewer than its limit of
 * entries in the past `windowMs` (an entry at exactly now - windowMs has left the window).
 * Refused requests are not logged, so a client that keeps retrying is admitted again as soon
 * as its oldest entries slide out.
 */

/** What a store reports about one window after a hit. */
export interface WindowState {
  /** Entries in the window after this hit (this request included when it was admitted). */
  count: number;
  /** Timestamp of the oldest entry still in the window; null when the window is empty. */
  oldestMs: number | null;
  /** When refused: the timestamp of the entry whose expiry frees a slot. */
  blockingMs: number | null;
}

export interface SlidingLogDecision {
  allowed: boolean;
  windows: WindowState[];
}

/** Admits or refuses one request against several logs at once (all or nothing); mutates the logs. */
export function hitSlidingLogs(
  logs: number[][],
  limits: number[],
  nowMs: number,
  windowMs: number,
): SlidingLogDecision {
  const cutoff = nowMs - windowMs;
  for (const log of logs) {
    let expired = 0;
    while (expired < log.length && log[expired] <= cutoff) expired++;
    log.splice(0, expired);
  }
  const allowed = logs.every((log, i) => log.length < limits[i]);
  if (allowed) {
    for (const log of logs) insertSorted(log, nowMs);
  }
  return {
    allowed,
    windows: logs.map((log, i) => ({
      count: log.length,
      oldestMs: log.length > 0 ? log[0] : null,
      blockingMs: !allowed && log.length >= limits[i] ? log[log.length - limits[i]] : null,
    })),
  };
}

function insertSorted(log: number[], value: number): void {
  let i = log.length;
  while (i > 0 && log[i - 1] > value) i--;
  log.splice(i, 0, value);
}

/** The values of the X-RateLimit-* headers and Retry-After for one window. */
export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix time in seconds at which the window has fully slid past its current entries' oldest. */
  resetAtSeconds: number;
  /** Whole seconds until a refused request would be admitted; 0 when admitted. */
  retryAfterSeconds: number;
}

export function describeWindow(
  state: WindowState,
  limit: number,
  allowed: boolean,
  nowMs: number,
  windowMs: number,
): RateLimitVerdict {
  // In a refused multi-window request, only the windows that are full did the refusing.
  const isRefusing = !allowed && state.blockingMs !== null;
  const resetAtMs = (state.oldestMs ?? nowMs) + windowMs;
  const retryAfterMs = state.blockingMs === null ? 0 : state.blockingMs + windowMs - nowMs;
  return {
    allowed: !isRefusing,
    limit,
    remaining: Math.max(0, limit - state.count),
    resetAtSeconds: Math.ceil(resetAtMs / 1000),
    retryAfterSeconds: isRefusing ? Math.max(1, Math.ceil(retryAfterMs / 1000)) : 0,
  };
}

/**
 * Of several windows, the one a client should be told about: the refusing one when refused,
 * else the one with the fewest requests left.
 */
export function pickBindingWindow(verdicts: RateLimitVerdict[]): RateLimitVerdict {
  const refused = verdicts.filter((verdict) => !verdict.allowed);
  if (refused.length > 0) {
    return refused.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
  }
  return verdicts.reduce((a, b) => (b.remaining < a.remaining ? b : a));
}
