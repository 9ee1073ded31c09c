/**
 * Waits after each failed attempt (docs/webhooks.md "Webhooks"): attempt 1 is immediate, then these,
 * each with up to ±20% jitter so endpoints that failed together are not retried together.
 * After the 10th attempt fails the delivery is `failed` (about 24 h after the event).
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  30_000, // 30 s
  2 * 60_000, // 2 min
  10 * 60_000, // 10 min
  30 * 60_000, // 30 min
  60 * 60_000, // 1 h
  2 * 3_600_000, // 2 h
  4 * 3_600_000, // 4 h
  7 * 3_600_000, // 7 h
  9 * 3_600_000, // 9 h
];

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * The wait before the next attempt after `attempts` failed ones, or null when none is left.
 * `random` is a number in [0, 1).
 */
export function retryDelayMs(attempts: number, random: number): number | null {
  if (attempts < 1 || attempts >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attempts - 1];
  return Math.round(base * (0.8 + 0.4 * random));
}
