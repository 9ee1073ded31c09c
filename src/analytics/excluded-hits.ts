// The excluded-hit ledger's vocabulary: why a hit on /r/ was served but not counted.

export const EXCLUDED_HIT_REASONS = [
  'bot_score',
  'bot_user_agent',
  'link_preview',
  'head',
  'ip_rate_limited',
  'creator_rate_limited',
  'quota_exhausted',
  // Expiry and click caps (docs/edge.md "Expiry and click caps"): a visitor of an expired or
  // capped link, and a capped link's visitor while Redis could not say (never counted then).
  'link_expired',
  'click_cap_reached',
  'cap_unverified',
] as const;
export type ExcludedHitReason = (typeof EXCLUDED_HIT_REASONS)[number];

/** Reasons whose hits were real visitors the creator would have earned from. */
export const REVENUE_LOSING_REASONS = ['creator_rate_limited', 'quota_exhausted'] as const;

/** Every reason at 0: answers list all of them, so a client needs no defaulting. */
export function zeroedByReason(): Record<ExcludedHitReason, number> {
  return Object.fromEntries(EXCLUDED_HIT_REASONS.map((reason) => [reason, 0])) as Record<
    ExcludedHitReason,
    number
  >;
}
