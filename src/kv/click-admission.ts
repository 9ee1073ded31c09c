/**
 * One click at the edge, admitted and recorded in one atomic step (DESIGN sections 3 and 5):
 * the per-IP and per-creator sliding windows, then the monthly quota (a Free creator stops at
 * its included clicks, paid plans count overage), then the append to the click stream.
 * Over a window: 429, nothing counted. Free at quota: original URL, nothing counted.
 */
export interface ClickAdmissionRequest {
  keys: { ipWindow: string; creatorWindow: string; quota: string; stream: string };
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
}

export type AdmissionVerdict =
  'counted' | 'ip_limited' | 'creator_limited' | 'quota_exhausted' | 'quota_missing';

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

/** The arithmetic of the admission script, for the in-process store; mutates its inputs. */
export function admitClickInMemory(
  state: {
    ipBuckets: Map<number, number>;
    creatorBuckets: Map<number, number>;
    used: number | null;
  },
  request: Pick<
    ClickAdmissionRequest,
    'nowMs' | 'windowMs' | 'ipLimit' | 'creatorLimit' | 'includedClicks' | 'isHardCap'
  >,
): ClickAdmissionResult {
  if (state.used === null) return { verdict: 'quota_missing', used: 0 };
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
  return { verdict: 'counted', used: state.used };
}

/**
 * The same rules in Lua for Redis, each window as two plain counters (one key per minute
 * bucket, expiring after two windows), so a click costs five or six Redis calls.
 * KEYS: ip bucket, ip previous bucket, creator bucket, creator previous bucket, quota, stream.
 * ARGV: elapsed share of the current bucket (0-1), bucket lifetime ms, ipLimit, creatorLimit,
 * includedClicks, hardCap (1/0), quotaSeed ('' when unknown), quotaTtlSeconds, record.
 */
export const ADMIT_CLICK_LUA = `
local elapsed = tonumber(ARGV[1])
-- The four window buckets and the quota counter in one call (a missing key reads as false).
local values = redis.call('MGET', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
local function sliding(current, previous)
  return tonumber(previous or '0') * (1 - elapsed) + tonumber(current or '0')
end
local used = values[5]
if not used then
  if ARGV[7] == '' then return {'quota_missing', 0} end
  redis.call('SET', KEYS[5], ARGV[7], 'EX', ARGV[8], 'NX')
  used = redis.call('GET', KEYS[5])
end
used = tonumber(used)
if sliding(values[1], values[2]) >= tonumber(ARGV[3]) then return {'ip_limited', used} end
if sliding(values[3], values[4]) >= tonumber(ARGV[4]) then return {'creator_limited', used} end
if ARGV[6] == '1' and used >= tonumber(ARGV[5]) then return {'quota_exhausted', used} end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('INCR', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[2]) end
used = redis.call('INCR', KEYS[5])
redis.call('XADD', KEYS[6], '*', 'c', ARGV[9])
return {'counted', used}
`;

/** The key of one minute bucket of a window key (same hash tag, so the same slot). */
export const bucketKeyOf = (windowKey: string, bucket: number): string => `${windowKey}:${bucket}`;
