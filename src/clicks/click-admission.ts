import type { EdgeKeys } from './edge-keys';

/**
 * One click at the edge, admitted and recorded in one atomic step (docs/design.md sections 3
 * and 5): the per-IP and per-creator sliding windows, then the monthly quota (a Free creator
 * stops at its included clicks, paid plans count overage), then the append to the click stream.
 * Over a window: 429, nothing counted. Free at quota: original URL, nothing counted.
 */
export interface ClickAdmissionRequest {
  keys: EdgeKeys;
  nowMs: number;
  windowMs: number;
  ipLimit: number;
  creatorLimit: number;
  includedClicks: number;
  /** Free plan: no overage, the quota is a hard stop. */
  isHardCap: boolean;
  /**
   * PostgreSQL's count for the period, to rebuild a quota counter lost with Redis; null when
   * not looked up yet: a missing counter then answers `quota_missing` and nothing is recorded.
   */
  quotaSeed: number | null;
  quotaTtlSeconds: number;
  /** The click record, serialised, appended to the stream when the click is counted. */
  record: string;
  /**
   * The HyperLogLogs a counted click adds its visitor's keyed hash to (link-day and
   * creator-day, analytics/unique-visitors.ts); `hash` null when the day's secret is unknown.
   */
  uniqueVisitor: { hash: string | null; linkKey: string; creatorKey: string; ttlSeconds: number };
  /** The link's click cap; absent or null for a link without one (nothing more is done). */
  linkCap?: LinkCapRequest | null;
}

/**
 * A capped link's counter (docs/edge.md "Expiry and click caps"): checked before the windows
 * and counted with the click, in the same script, so no node counts past the cap.
 */
interface LinkCapRequest {
  /** The link's counter (linkCapKeyOf: its creator's hash tag, so the same slot). */
  key: string;
  maxClicks: number;
  /**
   * PostgreSQL's count of the link's clicks, to rebuild a missing counter; null when not
   * looked up yet: a missing counter then answers `cap_missing` and nothing is recorded.
   */
  seed: number | null;
}

export type AdmissionVerdict =
  | 'counted'
  | 'ip_limited'
  | 'creator_limited'
  | 'quota_exhausted'
  | 'quota_missing'
  /** The link has counted its maxClicks: nothing counted, the visitor is sent on as expired. */
  | 'capped'
  | 'cap_missing';

export interface ClickAdmissionResult {
  verdict: AdmissionVerdict;
  /** Clicks counted this period after this one (or before it, when not counted). */
  used: number;
}

/**
 * Clicks in the sliding minute, estimated from two fixed buckets: all of the current one plus
 * the share of the previous one the window still covers (the sliding-window counter edges
 * use, e.g. Cloudflare's). Two counters per key instead of a log of up to 10,000 entries per
 * creator; exact while the previous bucket is empty.
 */
export function slidingCount(
  buckets: ReadonlyMap<number, number>,
  nowMs: number,
  windowMs: number,
): number {
  const bucket = Math.floor(nowMs / windowMs);
  const elapsed = (nowMs % windowMs) / windowMs;
  return (buckets.get(bucket - 1) ?? 0) * (1 - elapsed) + (buckets.get(bucket) ?? 0);
}

/** Counts one request in its bucket and forgets buckets older than the previous one. */
export function addToBuckets(buckets: Map<number, number>, nowMs: number, windowMs: number): void {
  const bucket = Math.floor(nowMs / windowMs);
  buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
  for (const key of buckets.keys()) if (key < bucket - 1) buckets.delete(key);
}

/** The rules of the admission script over a creator's windows and counter; mutates the state. */
export function admitClickInMemory(
  state: {
    ipBuckets: Map<number, number>;
    creatorBuckets: Map<number, number>;
    used: number | null;
    /** A capped link's counted clicks; null when its counter is missing. */
    linkClicks?: number | null;
  },
  request: Pick<
    ClickAdmissionRequest,
    'nowMs' | 'windowMs' | 'ipLimit' | 'creatorLimit' | 'includedClicks' | 'isHardCap'
  > & { maxClicks?: number | null },
): ClickAdmissionResult {
  if (state.used === null) return { verdict: 'quota_missing', used: 0 };
  const maxClicks = request.maxClicks ?? null;
  if (maxClicks !== null) {
    // A capped link refuses before the windows: it is gone for every visitor alike.
    const linkClicks = state.linkClicks ?? null;
    if (linkClicks === null) return { verdict: 'cap_missing', used: state.used };
    if (linkClicks >= maxClicks) return { verdict: 'capped', used: state.used };
  }
  const { nowMs, windowMs } = request;
  if (slidingCount(state.ipBuckets, nowMs, windowMs) >= request.ipLimit) {
    return { verdict: 'ip_limited', used: state.used };
  }
  if (slidingCount(state.creatorBuckets, nowMs, windowMs) >= request.creatorLimit) {
    return { verdict: 'creator_limited', used: state.used };
  }
  if (request.isHardCap && state.used >= request.includedClicks) {
    return { verdict: 'quota_exhausted', used: state.used };
  }
  addToBuckets(state.ipBuckets, nowMs, windowMs);
  addToBuckets(state.creatorBuckets, nowMs, windowMs);
  state.used += 1;
  if (maxClicks !== null) state.linkClicks = (state.linkClicks ?? 0) + 1;
  return { verdict: 'counted', used: state.used };
}
