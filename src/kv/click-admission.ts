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

/** The arithmetic of the admission script, for the in-process store; mutates its inputs. */
export function admitClickInMemory(
  state: { ipLog: number[]; creatorLog: number[]; used: number | null },
  request: Pick<
    ClickAdmissionRequest,
    'nowMs' | 'windowMs' | 'ipLimit' | 'creatorLimit' | 'includedClicks' | 'isHardCap'
  >,
): ClickAdmissionResult {
  if (state.used === null) return { verdict: 'quota_missing', used: 0 };
  const cutoff = request.nowMs - request.windowMs;
  for (const log of [state.ipLog, state.creatorLog]) {
    while (log.length > 0 && log[0] <= cutoff) log.shift();
  }
  if (state.ipLog.length >= request.ipLimit) return { verdict: 'ip_limited', used: state.used };
  if (state.creatorLog.length >= request.creatorLimit) {
    return { verdict: 'creator_limited', used: state.used };
  }
  if (request.isHardCap && state.used >= request.includedClicks) {
    return { verdict: 'quota_exhausted', used: state.used };
  }
  state.ipLog.push(request.nowMs);
  state.creatorLog.push(request.nowMs);
  state.used += 1;
  return { verdict: 'counted', used: state.used };
}

/** The same rules in Lua for Redis. KEYS: ipWindow, creatorWindow, quota, stream. */
export const ADMIT_CLICK_LUA = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local ipLimit = tonumber(ARGV[4])
local creatorLimit = tonumber(ARGV[5])
local included = tonumber(ARGV[6])
local hardCap = ARGV[7] == '1'
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
if ARGV[8] ~= '' then redis.call('SET', KEYS[3], ARGV[8], 'EX', ARGV[9], 'NX') end
local used = tonumber(redis.call('GET', KEYS[3]))
if used == nil then return {'quota_missing', 0} end
if redis.call('ZCARD', KEYS[1]) >= ipLimit then return {'ip_limited', used} end
if redis.call('ZCARD', KEYS[2]) >= creatorLimit then return {'creator_limited', used} end
if hardCap and used >= included then return {'quota_exhausted', used} end
redis.call('ZADD', KEYS[1], now, member)
redis.call('PEXPIRE', KEYS[1], window)
redis.call('ZADD', KEYS[2], now, member)
redis.call('PEXPIRE', KEYS[2], window)
used = redis.call('INCR', KEYS[3])
redis.call('XADD', KEYS[4], '*', 'c', ARGV[10])
return {'counted', used}
`;
