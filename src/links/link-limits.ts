import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { LinkDestination } from './link-destination';
import type { LinkEntity } from './link.entity';

/**
 * A link's expiry and click cap as the edge reads them (docs/edge.md "Expiry and click caps"):
 * present on a routing record only when the link has either, so a link without them costs the
 * redirect one `undefined` check.
 */
export interface LinkLimits {
  expiresAtMs: number | null;
  maxClicks: number | null;
  /** Where visitors go past either; null: the edge answers 410. */
  expired: LinkDestination | null;
}

/** The upper bound of `maxClicks`: far above any capped campaign, well inside an integer. */
export const MAX_CLICKS_LIMIT = 100_000_000;

export type LinkLimitFields = Pick<LinkEntity, 'expiresAt' | 'maxClicks' | 'expiredDestination'>;

/** Undefined when the link has neither an expiry nor a cap (its expired URL then never serves). */
export function linkLimitsOf(link: LinkLimitFields): LinkLimits | undefined {
  if (link.expiresAt === null && link.maxClicks === null) return undefined;
  return {
    expiresAtMs: link.expiresAt?.getTime() ?? null,
    maxClicks: link.maxClicks,
    expired: link.expiredDestination,
  };
}

/** Past the expiry instant (inclusive): the link no longer counts or routes. */
export const isExpiredAt = (limits: LinkLimits, nowMs: number): boolean =>
  limits.expiresAtMs !== null && nowMs >= limits.expiresAtMs;

/** What a create or PATCH asks of the limits: absent leaves a field, null clears it. */
export interface LinkLimitChanges {
  expiresAt?: string | null;
  maxClicks?: number | null;
}

/**
 * Applies the expiry and cap of a create or PATCH. A create refuses an instant already past
 * (the link would be born expired); a PATCH takes one, expiring the link at once. Lowering
 * `maxClicks` to or below the clicks already counted caps the link at once, raising it
 * reopens it: the edge compares the counter with the cap on every click. Answers whether the
 * link starts being capped (it had no cap): its click counter must then be rebuilt from
 * PostgreSQL, as clicks counted meanwhile never reached it.
 */
export function applyLinkLimits(
  link: LinkLimitFields,
  changes: LinkLimitChanges,
  nowMs: number,
  isCreate: boolean,
): boolean {
  if (changes.expiresAt !== undefined) {
    const expiresAt = changes.expiresAt === null ? null : new Date(changes.expiresAt);
    if (isCreate && expiresAt !== null && expiresAt.getTime() <= nowMs) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, 'The link would be expired already.', {
        expiresAt: ['must be in the future'],
      });
    }
    link.expiresAt = expiresAt;
  }
  const wasCapped = link.maxClicks !== null;
  if (changes.maxClicks !== undefined) link.maxClicks = changes.maxClicks;
  return !wasCapped && link.maxClicks !== null;
}

/** A new link's expiry and cap, validated as a create takes them. */
export function newLinkLimits(
  request: LinkLimitChanges,
  nowMs: number,
): Pick<LinkEntity, 'expiresAt' | 'maxClicks'> {
  const limits: LinkLimitFields = { expiresAt: null, maxClicks: null, expiredDestination: null };
  applyLinkLimits(limits, request, nowMs, true);
  return { expiresAt: limits.expiresAt, maxClicks: limits.maxClicks };
}

/** The link response's expiry fields: each present only when set. */
export function linkLimitsResponseOf(link: LinkLimitFields): {
  expiresAt?: string;
  maxClicks?: number;
  expiredUrl?: string;
} {
  return {
    ...(link.expiresAt !== null ? { expiresAt: link.expiresAt.toISOString() } : {}),
    ...(link.maxClicks !== null ? { maxClicks: link.maxClicks } : {}),
    ...(link.expiredDestination !== null
      ? { expiredUrl: link.expiredDestination.originalUrl }
      : {}),
  };
}
