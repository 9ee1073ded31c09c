import { WindowState } from '../rate-limit/sliding-log';

/**
 * The brute-force brake on API keys. The key format and its CRC-32 checksum are public, so a
 * guesser can make keys that pass the format check and reach the database lookup; only a cap
 * on failures per client stops one client from probing keys (or a leaked-key list) at line
 * rate. A failure is a 401: missing, malformed, unknown or revoked key.
 *
 * The limit is AUTH_FAILURES_PER_MINUTE (config/env.ts, default FAILED_AUTHS_PER_MINUTE = 20,
 * where its reasons are) failed authentications from one client in any sliding 60 s window;
 * from then on every API request of that client answers 429 RATE_LIMIT_EXCEEDED until the
 * oldest of those failures is 60 s old.
 */
export const FAILED_AUTH_WINDOW_MS = 60_000;

/**
 * When a client whose failure log is in `state` (after a hit) may fail again: once the failure
 * that filled the window slides out. Null while the log still has room.
 */
export function blockedUntilMs(state: WindowState, limit: number, windowMs: number): number | null {
  if (state.count < limit) return null;
  // Refused hits name the entry whose expiry frees a slot; for the hit that just filled the
  // window, that entry is the oldest one.
  const freeingEntryMs = state.blockingMs ?? state.oldestMs;
  return freeingEntryMs === null ? null : freeingEntryMs + windowMs;
}

/** Whole seconds to wait, at least 1, as Retry-After says it. */
export function retryAfterSecondsOf(blockedUntil: number, nowMs: number): number {
  return Math.max(1, Math.ceil((blockedUntil - nowMs) / 1000));
}

export function throttledMessage(limit: number, retryAfterSeconds: number): string {
  return (
    `Too many failed authentications from this address: the limit is ${limit} per minute; ` +
    `retry in ${retryAfterSeconds} seconds.`
  );
}
