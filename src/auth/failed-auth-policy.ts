import { WindowState } from '../rate-limit/sliding-log';

/**
 * The brute-force brake on API keys. The key format and its CRC-32 checksum are public, so a
 * guesser can make keys that pass the format check and reach the database lookup; only a cap
 * on failures per client stops one client from probing keys (or a leaked-key list) at line
 * rate. A failure is a 401: missing, malformed, unknown or revoked key.
 *
 * The limit is AUTH_FAILURES_PER_MINUTE (config/env.ts, default FAILED_AUTHS_PER_MINUTE = 20,
 * where its reasons are) failed authentications from one client in any sliding 60 s window;
 * from then on the client is blocked until the oldest of those failures is 60 s old.
 *
 * A block refuses guesses, not the client's customers: a key that authenticated from the
 * client in the last KNOWN_KEY_TTL_MS is looked up and served as usual while it lasts, so one
 * misconfigured job behind a NAT does not lock out every other key used from there. Every
 * other key gets 429 before any lookup, valid or not: were a key first seen during the block
 * looked up, its answer (served or refused) would tell a prober which leaked keys are live.
 * docs/design.md section 5 weighs this against the alternatives.
 */
export const FAILED_AUTH_WINDOW_MS = 60_000;

/** How long a key that authenticated from a client stays admitted through that client's blocks. */
export const KNOWN_KEY_TTL_MS = 24 * 60 * 60_000;

/**
 * A known key's last-seen time is written again once it is this old, so a key in steady use
 * costs one write per client per hour, not one per request, and never drops out while used.
 */
export const KNOWN_KEY_REFRESH_MS = 60 * 60_000;

/**
 * Keys remembered per client, the least recently seen dropped first: room for every customer
 * of one dashboard backend or office NAT, and a bound on what one client can make us keep.
 */
export const MAX_KNOWN_KEYS_PER_CLIENT = 1_000;

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

/** Whether a key last seen authenticating from the client at `lastSeenMs` is still known there. */
export function isKnownKey(lastSeenMs: number | null, nowMs: number): boolean {
  return lastSeenMs !== null && lastSeenMs > nowMs - KNOWN_KEY_TTL_MS;
}

/** Whether a key that just authenticated must be (re)written as known to the client. */
export function shouldRememberKey(lastSeenMs: number | null, nowMs: number): boolean {
  return lastSeenMs === null || nowMs - lastSeenMs >= KNOWN_KEY_REFRESH_MS;
}

/** Whole seconds to wait, at least 1, as Retry-After says it. */
export function retryAfterSecondsOf(blockedUntil: number, nowMs: number): number {
  return Math.max(1, Math.ceil((blockedUntil - nowMs) / 1000));
}

export function throttledMessage(limit: number, retryAfterSeconds: number): string {
  return (
    `Too many failed authentications from this address: the limit is ${limit} per minute; ` +
    'until the block ends only keys already used from this address are accepted; ' +
    `retry in ${retryAfterSeconds} seconds.`
  );
}
