const HOUR_MS = 60 * 60 * 1000;

/** How long a deep-link result is kept before a re-probe (SPEC, Size and value bounds). */
export const DEEP_LINK_TTL_MS = {
  validated: 72 * HOUR_MS,
  invalid: 24 * HOUR_MS,
} as const;

export type ExpiringDeepLinkStatus = keyof typeof DEEP_LINK_TTL_MS;

/** Rows checked strictly before this instant are expired at `nowMs` (what the sweep queries). */
export function expiryCutoffMs(status: ExpiringDeepLinkStatus, nowMs: number): number {
  return nowMs - DEEP_LINK_TTL_MS[status];
}

/**
 * Whether a deep-link result has outlived its TTL at `nowMs`: a validated one after 72 h, an
 * invalid one after 24 h (strictly more; exactly 72 h still counts as fresh). A validated or
 * invalid status with no check time is expired, so it gets probed again. Other statuses
 * (unchecked, ttl_expired) never expire: they are already waiting for a probe.
 */
export function isExpired(status: string, checkedAt: Date | null, nowMs: number): boolean {
  if (status !== 'validated' && status !== 'invalid') return false;
  if (checkedAt === null) return true;
  return checkedAt.getTime() < expiryCutoffMs(status, nowMs);
}
