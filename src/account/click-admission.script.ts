import type { KvScript, ScriptArg } from '../kv/kv-script';
import { AdmissionVerdict, admitClickInMemory, ClickAdmissionRequest } from './click-admission';
import { bucketKeyOf } from './edge-keys';

/**
 * The rules of click-admission.ts as one atomic script: in Lua for Redis, and as its twin
 * (admitClickInMemory over the same keys) for the in-process store. Each window is two plain
 * counters, one key per minute bucket expiring after two windows, so a click costs five or
 * six Redis calls. Keys and arguments: clickAdmissionKeys and clickAdmissionArgs.
 * KEYS: ip bucket, ip previous bucket, creator bucket, creator previous bucket, quota, stream,
 * link-day and creator-day unique-visitor HyperLogLogs.
 * ARGV: nowMs, windowMs, ipLimit, creatorLimit, includedClicks, hardCap (1/0), quotaSeed
 * ('' when unknown), quotaTtlSeconds, record, visitor hash ('' when unknown), unique-visitor
 * TTL seconds. Reply: {verdict, used}.
 */
export const CLICK_ADMISSION_SCRIPT: KvScript<[AdmissionVerdict, number]> = {
  name: 'admitClick',
  lua: `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
-- The share of the current bucket already past, as slidingCount computes it.
local elapsed = (now % window) / window
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
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], 2 * window) end
if redis.call('INCR', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], 2 * window) end
used = redis.call('INCR', KEYS[5])
redis.call('XADD', KEYS[6], '*', 'c', ARGV[9])
if ARGV[10] ~= '' then
  -- PFADD answers 1 when the estimate changed: only then is the expiry set again.
  if redis.call('PFADD', KEYS[7], ARGV[10]) == 1 then redis.call('EXPIRE', KEYS[7], ARGV[11]) end
  if redis.call('PFADD', KEYS[8], ARGV[10]) == 1 then redis.call('EXPIRE', KEYS[8], ARGV[11]) end
end
return {'counted', used}
`,
  runInMemory(data, keys, args) {
    const [ipBucket, ipPrevious, creatorBucket, creatorPrevious, quota, stream, ...visitorSets] =
      keys;
    const nowMs = Number(args[0]);
    const windowMs = Number(args[1]);
    const quotaSeed = String(args[6]);
    let used = data.getString(quota);
    if (used === null && quotaSeed !== '') {
      data.setString(quota, quotaSeed, { ttlMs: Number(args[7]) * 1000, onlyIfAbsent: true });
      used = data.getString(quota);
    }
    const bucket = Math.floor(nowMs / windowMs);
    const bucketsOf = (current: string, previous: string): Map<number, number> =>
      new Map([
        [bucket - 1, Number(data.getString(previous) ?? 0)],
        [bucket, Number(data.getString(current) ?? 0)],
      ]);
    const decision = admitClickInMemory(
      {
        ipBuckets: bucketsOf(ipBucket, ipPrevious),
        creatorBuckets: bucketsOf(creatorBucket, creatorPrevious),
        used: used === null ? null : Number(used),
      },
      {
        nowMs,
        windowMs,
        ipLimit: Number(args[2]),
        creatorLimit: Number(args[3]),
        includedClicks: Number(args[4]),
        isHardCap: String(args[5]) === '1',
      },
    );
    if (decision.verdict !== 'counted') return [decision.verdict, decision.used];
    for (const key of [ipBucket, creatorBucket]) {
      if (data.increment(key) === 1) data.expireInMs(key, 2 * windowMs);
    }
    const counted = data.increment(quota);
    data.appendToStream(stream, String(args[8]));
    const visitorHash = String(args[9]);
    if (visitorHash !== '') {
      for (const key of visitorSets) {
        data.structureAt(key, () => new Set<string>()).add(visitorHash);
        data.expireInMs(key, Number(args[10]) * 1000);
      }
    }
    return ['counted', counted];
  },
};

/** The script's keys for a request: both windows' current and previous buckets, quota, stream. */
export function clickAdmissionKeys(request: ClickAdmissionRequest): string[] {
  const { keys, nowMs, windowMs } = request;
  const bucket = Math.floor(nowMs / windowMs);
  return [
    bucketKeyOf(keys.ipWindow, bucket),
    bucketKeyOf(keys.ipWindow, bucket - 1),
    bucketKeyOf(keys.creatorWindow, bucket),
    bucketKeyOf(keys.creatorWindow, bucket - 1),
    keys.quota,
    keys.stream,
    request.uniqueVisitor.linkKey,
    request.uniqueVisitor.creatorKey,
  ];
}

export function clickAdmissionArgs(request: ClickAdmissionRequest): ScriptArg[] {
  return [
    request.nowMs,
    request.windowMs,
    request.ipLimit,
    request.creatorLimit,
    request.includedClicks,
    request.isHardCap ? '1' : '0',
    request.quotaSeed ?? '',
    request.quotaTtlSeconds,
    request.record,
    request.uniqueVisitor.hash ?? '',
    request.uniqueVisitor.ttlSeconds,
  ];
}
