const HOUR_MS = 60 * 60 * 1000;

/** How long a deep-link result is kept before a re-probe (SPEC, Size and value bounds). */
const DEEP_LINK_TTL_MS = {
  validated: 72 * HOUR_MS,
  invalid: 24 * HOUR_MS,
} as const;

type ExpiringDeepLinkStatus = keyof typeof DEEP_LINK_TTL_MS;

/**
 * Rows checked strictly before this instant are expired at `nowMs` (what the sweep queries):
 * a validated result after 72 h, an invalid one after 24 h (exactly 72 h still counts as fresh).
 */
export function expiryCutoffMs(status: ExpiringDeepLinkStatus, nowMs: number): number {
  return nowMs - DEEP_LINK_TTL_MS[status];
}
