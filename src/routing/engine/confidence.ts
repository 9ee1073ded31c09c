import type { DeepLinkStatus } from './routing-types';

export const CONFIDENCE_MIN = 0.65;
export const CONFIDENCE_MAX = 1.1;
/** SPEC "FX rates": every score of a decision made on stale rates. */
export const STALE_FX_PENALTY = -0.02;
/** SPEC "States and transitions": deep link invalid or its validation expired. */
export const DEEP_LINK_PENALTY = -0.05;

export interface ConfidenceInput {
  /** The merchant profile's meta.dataConfidenceScore, 0-100. */
  dataConfidenceScore: number;
  /** The candidate region's trustScore, 0-100. */
  trustScore: number;
  isFxStale: boolean;
  deepLinkStatus: DeepLinkStatus;
}

/** C_r and how it was built, so the trace and tests can show each part. */
export interface ConfidenceBreakdown {
  /** 0.70 + 0.25 * dataConfidenceScore/100 + 0.15 * trustScore/100. */
  base: number;
  /** STALE_FX_PENALTY or 0. */
  fxPenalty: number;
  /** DEEP_LINK_PENALTY or 0. */
  deepLinkPenalty: number;
  /** base + penalties, before clamping. */
  unclamped: number;
  /** C_r: `unclamped` clamped to [0.65, 1.10]. */
  factor: number;
}

/**
 * The confidence factor C_r of one candidate (docs/routing.md section 5, docs/design.md section 4):
 * clamp(0.70 + 0.25*dataConfidence/100 + 0.15*trust/100 + penalties, 0.65, 1.10).
 * Perfect data and trust reach the 1.10 ceiling; the penalties can push it to the 0.65 floor.
 */
export function computeConfidence(input: ConfidenceInput): ConfidenceBreakdown {
  const base = 0.7 + (0.25 * input.dataConfidenceScore) / 100 + (0.15 * input.trustScore) / 100;
  const fxPenalty = input.isFxStale ? STALE_FX_PENALTY : 0;
  const deepLinkPenalty =
    input.deepLinkStatus === 'invalid' || input.deepLinkStatus === 'ttl_expired'
      ? DEEP_LINK_PENALTY
      : 0;
  const unclamped = base + fxPenalty + deepLinkPenalty;
  const factor = Math.min(CONFIDENCE_MAX, Math.max(CONFIDENCE_MIN, unclamped));
  return { base, fxPenalty, deepLinkPenalty, unclamped, factor };
}

/** The [G] 0-100 confidence of a route: min(100, round(100 * C_r)). */
export function confidencePercent(factor: number): number {
  return Math.min(100, Math.round(100 * factor));
}
