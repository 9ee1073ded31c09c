import { createHash } from 'node:crypto';
import type { KeyEnvironment } from '../common/access/auth-context';
import type { KvScript, ScriptData } from '../kv/kv-script';
import { EDGE_SHARDS, edgeShardOf, shardTagOf } from './click-streams';
import { VisitorSketch } from './visitor-sketch';

/**
 * Unique visitors without personal data: per link and UTC day (and per creator, environment
 * and day, for period totals) a HyperLogLog of a keyed hash of (client address, user agent,
 * day), fed by the click admission script (no second round trip). The hash key is a random
 * secret per day that expires after two days, so no raw address or agent is stored and one
 * day's hashes cannot be joined with another's. The sketches of today and yesterday live in
 * the key-value store; older days move to PostgreSQL (visitor-sketch-mover.ts), where their
 * registers merge with the store's by the same arithmetic (hyperloglog.ts).
 */

/**
 * How long a sketch's key outlives its last visitor: a safety bound, not the retention. The
 * mover takes every day to PostgreSQL once it is over by a day, within the hour, and deletes
 * its keys; this only bounds what the store holds if the mover cannot run (every server
 * down, PostgreSQL unreachable) for most of a week, so memory never grows with history again.
 * Days the keys outlived that way count 0.
 */
export const UNIQUE_VISITORS_TTL_DAYS = 7;
export const UNIQUE_VISITORS_TTL_SECONDS = UNIQUE_VISITORS_TTL_DAYS * 24 * 3600;

/**
 * Before sketches moved to PostgreSQL keys were kept this long: the first move after the
 * upgrade looks this far back for days still in the store.
 */
export const LEGACY_TTL_DAYS = 400;

/** The HyperLogLogs a counted click of this link on this day adds its visitor to. */
export function uniqueVisitorKeys(
  creatorId: string,
  environment: KeyEnvironment,
  linkId: string,
  day: string,
): { link: string; creator: string } {
  const tag = tagOf(creatorId);
  return {
    link: linkKeyIn(tag, linkId, day),
    creator: creatorKeyIn(tag, creatorId, environment, day),
  };
}

/** The sketch's key: a link's (`linkId`), or the creator's in the environment (null). */
export function sketchKeyOf(
  creatorId: string,
  environment: KeyEnvironment,
  linkId: string | null,
  day: string,
): string {
  const tag = tagOf(creatorId);
  return linkId === null
    ? creatorKeyIn(tag, creatorId, environment, day)
    : linkKeyIn(tag, linkId, day);
}

// The creator's shard tag, like every key of the admission script (one hash slot), so all of
// a creator's sketches share a slot too and any of them can be read or deleted together.
const tagOf = (creatorId: string): string => shardTagOf(edgeShardOf(creatorId));
const linkKeyIn = (tag: string, linkId: string, day: string): string =>
  `uv:${tag}:l:${linkId}:${day}`;
const creatorKeyIn = (tag: string, creatorId: string, environment: string, day: string) =>
  `uv:${tag}:c:${creatorId}:${environment}:${day}`;

/**
 * A shard's set of link-days a spool replay added visitors to after their day was over, and
 * so possibly after the mover had taken the day to PostgreSQL: the mover takes them again.
 * In the shard's slot, beside the keys the replay writes.
 */
export const lateSketchesKey = (shard: number): string => `uv:${shardTagOf(shard)}:late`;
export const LATE_SKETCH_KEYS: readonly string[] = Array.from({ length: EDGE_SHARDS }, (_, shard) =>
  lateSketchesKey(shard),
);

/** A late link-day: whose sketches (the link's and the creator's) to move again. */
export interface LateSketch {
  creatorId: string;
  environment: KeyEnvironment;
  linkId: string;
  day: string;
}

export const lateSketchMember = ({ creatorId, environment, linkId, day }: LateSketch): string =>
  `${creatorId}|${environment}|${linkId}|${day}`;

export function parseLateSketchMember(member: string): LateSketch | null {
  const [creatorId, environment, linkId, day] = member.split('|');
  if (day === undefined || (environment !== 'live' && environment !== 'test')) return null;
  return { creatorId, environment, linkId, day };
}

/** The twin of `PFADD key visitor` and the EXPIRE the scripts give the key when it changed. */
export function addVisitorInMemory(
  data: ScriptData,
  key: string,
  visitorHash: string,
  ttlSeconds: number,
): void {
  if (data.structureAt(key, () => new VisitorSketch()).add(visitorHash)) {
    data.expireInMs(key, ttlSeconds * 1000);
  }
}

/** The SHA-1 of a value, as Lua's redis.sha1hex gives it. */
export const sha1HexOf = (bytes: Uint8Array): string =>
  createHash('sha1').update(bytes).digest('hex');

/**
 * Deletes each sketch key that still holds the value the mover read (by its SHA-1), after
 * PostgreSQL committed it: a visitor added in between (a spool replay) keeps its key, to be
 * moved again, rather than being lost. KEYS: the sketches (one hash slot). ARGV: the SHA-1 of
 * each value read. Reply: how many were deleted.
 */
export const DELETE_MOVED_SKETCHES_SCRIPT: KvScript<number> = {
  name: 'deleteMovedSketches',
  lua: `
local deleted = 0
for i, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if value and redis.sha1hex(value) == ARGV[i] then deleted = deleted + redis.call('DEL', key) end
end
return deleted
`,
  runInMemory(data, keys, args) {
    let deleted = 0;
    keys.forEach((key, i) => {
      const value = data.getBytes(key);
      if (value !== null && sha1HexOf(value) === String(args[i])) {
        data.deleteKey(key);
        deleted++;
      }
    });
    return deleted;
  },
};

/** SMEMBERS of a shard's late set (lateSketchesKey). KEYS: the set. */
export const LATE_SKETCHES_SCRIPT: KvScript<string[]> = {
  name: 'lateSketches',
  lua: `return redis.call('SMEMBERS', KEYS[1])`,
  runInMemory(data, keys) {
    return [...data.structureAt(keys[0], () => new Set<string>())];
  },
};

/** SREM of the members moved. KEYS: the set. ARGV: the members. Reply: how many went. */
export const FORGET_LATE_SKETCHES_SCRIPT: KvScript<number> = {
  name: 'forgetLateSketches',
  lua: `return redis.call('SREM', KEYS[1], unpack(ARGV))`,
  runInMemory(data, keys, args) {
    const members = data.structureAt(keys[0], () => new Set<string>());
    let removed = 0;
    for (const member of args) if (members.delete(String(member))) removed++;
    return removed;
  },
};

/** The UTC day of a click, `YYYY-MM-DD`, remembered for the current day (every click asks). */
let memoDay = { dayNumber: -1, day: '' };
export function clickDayOf(ms: number): string {
  const dayNumber = Math.floor(ms / 86_400_000);
  if (memoDay.dayNumber !== dayNumber) {
    memoDay = { dayNumber, day: new Date(ms).toISOString().slice(0, 10) };
  }
  return memoDay.day;
}

/** Every UTC day of an inclusive period, `YYYY-MM-DD`. */
export function daysOfPeriod(periodStart: string, periodEnd: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${periodEnd}T00:00:00Z`);
  for (let ms = Date.parse(`${periodStart}T00:00:00Z`); ms <= end; ms += 86_400_000) {
    days.push(new Date(ms).toISOString().slice(0, 10));
  }
  return days;
}

/** The day `days` before (or after, negative) a day, `YYYY-MM-DD`. */
export function dayBefore(day: string, days = 1): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The days whose sketches may still be in the key-value store at `nowMs`, oldest first:
 * written on their day and kept UNIQUE_VISITORS_TTL_DAYS after the last visitor, so from
 * that many days back to today. (Older days reach it again only through a spool replay,
 * and count once the mover has taken them, within the hour.)
 */
export function daysStillInStore(nowMs: number): { from: string; to: string } {
  const today = clickDayOf(nowMs);
  return { from: dayBefore(today, UNIQUE_VISITORS_TTL_DAYS), to: today };
}
