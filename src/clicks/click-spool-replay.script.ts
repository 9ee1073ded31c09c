import { addVisitorInMemory } from '../analytics/unique-visitors';
import type { KvScript } from '../kv/kv-script';

/**
 * The two steps of a spool replay (click-spool-replay.service.ts), each one atomic script, in
 * Lua for Redis and as its twin for the in-process store.
 */

/**
 * One spooled click back into its shard's click stream, and its visitor into the link-day and
 * creator-day unique-visitor HyperLogLogs, as the admission script would have done. Replaying
 * a click twice appends it twice (the consumer's insert skips the second, by record id) and
 * adds its visitor twice (a set: no change). A click of a day already over is also noted in
 * the shard's late set, so the sketch mover takes its day's sketches to PostgreSQL again
 * (analytics/unique-visitors.ts lateSketchesKey).
 * KEYS: stream, link-day HyperLogLog, creator-day HyperLogLog, the shard's late set.
 * ARGV: record, visitor hash ('' when unknown), unique-visitor TTL seconds, late member ('' for
 * a click of today). Reply: the stream entry's id.
 */
export const REPLAY_SPOOLED_CLICK_SCRIPT: KvScript<string> = {
  name: 'replaySpooledClick',
  lua: `
local id = redis.call('XADD', KEYS[1], '*', 'c', ARGV[1])
if ARGV[2] ~= '' then
  if redis.call('PFADD', KEYS[2], ARGV[2]) == 1 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
  if redis.call('PFADD', KEYS[3], ARGV[2]) == 1 then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
  if ARGV[4] ~= '' then
    redis.call('SADD', KEYS[4], ARGV[4])
    redis.call('EXPIRE', KEYS[4], ARGV[3])
  end
end
return id
`,
  runInMemory(data, keys, args) {
    const [stream, linkSketch, creatorSketch, lateSet] = keys;
    const id = data.appendToStream(stream, String(args[0]));
    const visitorHash = String(args[1]);
    const ttlSeconds = Number(args[2]);
    if (visitorHash !== '') {
      addVisitorInMemory(data, linkSketch, visitorHash, ttlSeconds);
      addVisitorInMemory(data, creatorSketch, visitorHash, ttlSeconds);
      if (String(args[3]) !== '') {
        data.structureAt(lateSet, () => new Set<string>()).add(String(args[3]));
        data.expireInMs(lateSet, ttlSeconds * 1000);
      }
    }
    return id;
  },
};

/**
 * Adds one segment's spooled clicks of a creator, environment and period to its quota counter,
 * once: the marker key (same hash slot as the counter) remembers that this segment was
 * counted, so a replay that crashed and runs again never adds twice. A counter Redis kept is
 * raised by the clicks; a missing one (Redis lost it) is created from PostgreSQL's count plus
 * the clicks, unless the seed is unknown ('': then it stays missing, for the next click to
 * rebuild). ClickSpoolReplayService explains why both are exact.
 * KEYS: quota counter, marker. ARGV: clicks, marker TTL seconds, seed ('' when unknown),
 * counter TTL seconds.
 * Reply: the counter's value after, 0 when it stays missing, -1 when the marker was there.
 */
export const RECONCILE_QUOTA_SCRIPT: KvScript<number> = {
  name: 'reconcileSpooledQuota',
  lua: `
if not redis.call('SET', KEYS[2], '1', 'EX', ARGV[2], 'NX') then return -1 end
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end
if ARGV[3] == '' then return 0 end
local used = tonumber(ARGV[3]) + tonumber(ARGV[1])
redis.call('SET', KEYS[1], used, 'EX', ARGV[4])
return used
`,
  runInMemory(data, keys, args) {
    const [counter, marker] = keys;
    const [clicks, markerTtlSeconds, seed, counterTtlSeconds] = args;
    const isFirst = data.setString(marker, '1', {
      ttlMs: Number(markerTtlSeconds) * 1000,
      onlyIfAbsent: true,
    });
    if (!isFirst) return -1;
    if (data.getString(counter) !== null) {
      // INCR keeps the counter's expiry, which a SET of the sum would drop.
      let used = 0;
      for (let i = 0; i < Number(clicks); i++) used = data.increment(counter);
      return used;
    }
    if (String(seed) === '') return 0;
    const used = Number(seed) + Number(clicks);
    data.setString(counter, String(used), { ttlMs: Number(counterTtlSeconds) * 1000 });
    return used;
  },
};

/** The marker of one segment's reconciliation with one counter: the counter's hash tag. */
export const reconciledMarkerKey = (quotaKey: string, segmentName: string): string =>
  `${quotaKey}:spool:${segmentName}`;
