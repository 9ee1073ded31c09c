import { addVisitorInMemory } from '../analytics/unique-visitors';
import type { KvScript, ScriptArg, ScriptData } from '../kv/kv-script';
import { AdmissionVerdict, admitClickInMemory, ClickAdmissionRequest } from './click-admission';
import { bucketKeyOf } from './edge-keys';

/** Keys and arguments one click takes in either script (clickAdmissionKeys, clickAdmissionArgs). */
const KEYS_PER_CLICK = 9;
const ARGS_PER_CLICK = 13;

/**
 * The rules of click-admission.ts as one atomic script: in Lua for Redis, and as its twin
 * (admitClickInMemory over the same keys) for the in-process store. Each window is two plain
 * counters, one key per minute bucket expiring after two windows, so a click costs five or
 * six Redis calls. `admit(k, a)` reads one click's keys from KEYS[k+1] and its arguments from
 * ARGV[a+1], so the one-click and the batched script share it.
 * A click's KEYS: ip bucket, ip previous bucket, creator bucket, creator previous bucket,
 * quota, stream, link-day and creator-day unique-visitor HyperLogLogs, the link's cap counter
 * (the stream key again for a link without a cap: never touched then).
 * Its ARGV: nowMs, windowMs, ipLimit, creatorLimit, includedClicks, hardCap (1/0), quotaSeed
 * ('' when unknown), quotaTtlSeconds, record, visitor hash ('' when unknown), unique-visitor
 * TTL seconds, maxClicks ('' without a cap), cap seed ('' when unknown). A click's answer:
 * verdict, used. A cap counter lives as long as a quota counter after its last click.
 */
const ADMIT_ONE_LUA = `
-- elapsed: the share of the current bucket already past, as slidingCount computes it.
local function sliding(current, previous, elapsed)
  return tonumber(previous or '0') * (1 - elapsed) + tonumber(current or '0')
end
local function admit(k, a)
  local now = tonumber(ARGV[a + 1])
  local window = tonumber(ARGV[a + 2])
  local elapsed = (now % window) / window
  -- The four window buckets and the quota counter in one call (a missing key reads as false).
  local values = redis.call('MGET', KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5])
  local used = values[5]
  if not used then
    if ARGV[a + 7] == '' then return 'quota_missing', 0 end
    redis.call('SET', KEYS[k + 5], ARGV[a + 7], 'EX', ARGV[a + 8], 'NX')
    used = redis.call('GET', KEYS[k + 5])
  end
  used = tonumber(used)
  local cap = ARGV[a + 12]
  if cap ~= '' then
    -- A capped link refuses before the windows: it is gone for every visitor alike.
    local linkClicks = redis.call('GET', KEYS[k + 9])
    if not linkClicks then
      if ARGV[a + 13] == '' then return 'cap_missing', used end
      redis.call('SET', KEYS[k + 9], ARGV[a + 13], 'EX', ARGV[a + 8], 'NX')
      linkClicks = redis.call('GET', KEYS[k + 9])
    end
    if tonumber(linkClicks) >= tonumber(cap) then return 'capped', used end
  end
  if sliding(values[1], values[2], elapsed) >= tonumber(ARGV[a + 3]) then return 'ip_limited', used end
  if sliding(values[3], values[4], elapsed) >= tonumber(ARGV[a + 4]) then
    return 'creator_limited', used
  end
  if ARGV[a + 6] == '1' and used >= tonumber(ARGV[a + 5]) then return 'quota_exhausted', used end
  if redis.call('INCR', KEYS[k + 1]) == 1 then redis.call('PEXPIRE', KEYS[k + 1], 2 * window) end
  if redis.call('INCR', KEYS[k + 3]) == 1 then redis.call('PEXPIRE', KEYS[k + 3], 2 * window) end
  used = redis.call('INCR', KEYS[k + 5])
  redis.call('XADD', KEYS[k + 6], '*', 'c', ARGV[a + 9])
  if cap ~= '' then
    redis.call('INCR', KEYS[k + 9])
    redis.call('EXPIRE', KEYS[k + 9], ARGV[a + 8])
  end
  local visitor = ARGV[a + 10]
  if visitor ~= '' then
    -- PFADD answers 1 when the estimate changed: only then is the expiry set again.
    if redis.call('PFADD', KEYS[k + 7], visitor) == 1 then redis.call('EXPIRE', KEYS[k + 7], ARGV[a + 11]) end
    if redis.call('PFADD', KEYS[k + 8], visitor) == 1 then redis.call('EXPIRE', KEYS[k + 8], ARGV[a + 11]) end
  end
  return 'counted', used
end
`;

/** One click: its keys and arguments as clickAdmissionKeys and clickAdmissionArgs give them. */
export const CLICK_ADMISSION_SCRIPT: KvScript<[AdmissionVerdict, number]> = {
  name: 'admitClick',
  lua: `${ADMIT_ONE_LUA}
local verdict, used = admit(0, 0)
return {verdict, used}
`,
  runInMemory(data, keys, args) {
    return admitOneInMemory(data, keys, args, 0, 0);
  },
};

/**
 * Several clicks in one call, admitted one after the other exactly as that many calls of
 * CLICK_ADMISSION_SCRIPT would (the redirect sends one event-loop turn's clicks together:
 * click-admission-batch.ts). ARGV[1] is the number of clicks; then each click's keys and
 * arguments in turn (clickBatchKeysAndArgs). Reply: each click's verdict and used, flat.
 */
export const CLICK_BATCH_ADMISSION_SCRIPT: KvScript<(AdmissionVerdict | number)[]> = {
  name: 'admitClicks',
  lua: `${ADMIT_ONE_LUA}
local answers = {}
for click = 0, tonumber(ARGV[1]) - 1 do
  local verdict, used = admit(click * ${KEYS_PER_CLICK}, 1 + click * ${ARGS_PER_CLICK})
  answers[#answers + 1] = verdict
  answers[#answers + 1] = used
end
return answers
`,
  runInMemory(data, keys, args) {
    const answers: (AdmissionVerdict | number)[] = [];
    for (let click = 0; click < Number(args[0]); click++) {
      answers.push(
        ...admitOneInMemory(data, keys, args, click * KEYS_PER_CLICK, 1 + click * ARGS_PER_CLICK),
      );
    }
    return answers;
  },
};

/** The twin of the Lua `admit(k, a)`. */
function admitOneInMemory(
  data: ScriptData,
  allKeys: readonly string[],
  allArgs: readonly ScriptArg[],
  keyOffset: number,
  argOffset: number,
): [AdmissionVerdict, number] {
  const keys = allKeys.slice(keyOffset, keyOffset + KEYS_PER_CLICK);
  const args = allArgs.slice(argOffset, argOffset + ARGS_PER_CLICK);
  const [ipBucket, ipPrevious, creatorBucket, creatorPrevious, quota, stream, ...rest] = keys;
  const visitorSets = rest.slice(0, 2);
  const capKey = rest[2];
  const nowMs = Number(args[0]);
  const windowMs = Number(args[1]);
  const quotaSeed = String(args[6]);
  let used = data.getString(quota);
  if (used === null && quotaSeed !== '') {
    data.setString(quota, quotaSeed, { ttlMs: Number(args[7]) * 1000, onlyIfAbsent: true });
    used = data.getString(quota);
  }
  const maxClicks = String(args[11]) === '' ? null : Number(args[11]);
  const quotaTtlMs = Number(args[7]) * 1000;
  let linkClicks: string | null = null;
  if (maxClicks !== null && used !== null) {
    linkClicks = data.getString(capKey);
    if (linkClicks === null && String(args[12]) !== '') {
      data.setString(capKey, String(args[12]), { ttlMs: quotaTtlMs, onlyIfAbsent: true });
      linkClicks = data.getString(capKey);
    }
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
      linkClicks: linkClicks === null ? null : Number(linkClicks),
    },
    {
      nowMs,
      windowMs,
      ipLimit: Number(args[2]),
      creatorLimit: Number(args[3]),
      includedClicks: Number(args[4]),
      isHardCap: String(args[5]) === '1',
      maxClicks,
    },
  );
  if (decision.verdict !== 'counted') return [decision.verdict, decision.used];
  for (const key of [ipBucket, creatorBucket]) {
    if (data.increment(key) === 1) data.expireInMs(key, 2 * windowMs);
  }
  const counted = data.increment(quota);
  data.appendToStream(stream, String(args[8]));
  if (maxClicks !== null) {
    data.increment(capKey);
    data.expireInMs(capKey, quotaTtlMs);
  }
  const visitorHash = String(args[9]);
  if (visitorHash !== '') {
    for (const key of visitorSets) addVisitorInMemory(data, key, visitorHash, Number(args[10]));
  }
  return ['counted', counted];
}

/**
 * The script's keys for a request: both windows' current and previous buckets, quota, stream,
 * both unique-visitor sets, the link's cap counter. Appended to `into` when given (a batch's
 * list), else a new list.
 */
export function clickAdmissionKeys(request: ClickAdmissionRequest, into: string[] = []): string[] {
  const { keys, nowMs, windowMs } = request;
  const bucket = Math.floor(nowMs / windowMs);
  into.push(
    bucketKeyOf(keys.ipWindow, bucket),
    bucketKeyOf(keys.ipWindow, bucket - 1),
    bucketKeyOf(keys.creatorWindow, bucket),
    bucketKeyOf(keys.creatorWindow, bucket - 1),
    keys.quota,
    keys.stream,
    request.uniqueVisitor.linkKey,
    request.uniqueVisitor.creatorKey,
    request.linkCap?.key ?? keys.stream,
  );
  return into;
}

/** The script's arguments for a request, appended to `into` like clickAdmissionKeys. */
export function clickAdmissionArgs(
  request: ClickAdmissionRequest,
  into: ScriptArg[] = [],
): ScriptArg[] {
  into.push(
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
    request.linkCap?.maxClicks ?? '',
    request.linkCap?.seed ?? '',
  );
  return into;
}

/**
 * The batched script's keys and arguments for these clicks: the count, then each click's own
 * in turn (the same lists clickAdmissionKeys and clickAdmissionArgs give one click).
 */
export function clickBatchKeysAndArgs(requests: readonly ClickAdmissionRequest[]): {
  keys: string[];
  args: ScriptArg[];
} {
  const keys: string[] = [];
  const args: ScriptArg[] = [requests.length];
  for (const request of requests) {
    clickAdmissionKeys(request, keys);
    clickAdmissionArgs(request, args);
  }
  return { keys, args };
}

/** The batched script's flat reply as each click's verdict and used count, in order. */
export function batchAnswersOf(
  reply: readonly (AdmissionVerdict | number)[],
): [AdmissionVerdict, number][] {
  const answers: [AdmissionVerdict, number][] = [];
  for (let at = 0; at < reply.length; at += 2) {
    answers.push([reply[at] as AdmissionVerdict, reply[at + 1] as number]);
  }
  return answers;
}
