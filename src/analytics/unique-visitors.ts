import type { KeyEnvironment } from '../common/access/auth-context';
import type { KvScript } from '../kv/kv-script';
import { edgeShardOf, shardTagOf } from './click-streams';

/**
 * Unique visitors without personal data: per link and UTC day (and per creator, environment
 * and day, for period totals) a HyperLogLog of a keyed hash of (client address, user agent,
 * day), fed by the click admission script (no second round trip). The hash key is a random
 * secret per day that expires after two days, so no raw address or agent is stored and one
 * day's hashes cannot be joined with another's. Redis's HyperLogLog errs by about 0.81%
 * (standard error); the in-process store counts exactly.
 */

/** Unique-visitor counters are kept this long (a year and a bit, like the summary's range). */
export const UNIQUE_VISITORS_TTL_SECONDS = 400 * 24 * 3600;

/** The HyperLogLogs a counted click of this link on this day adds its visitor to. */
export function uniqueVisitorKeys(
  creatorId: string,
  environment: KeyEnvironment,
  linkId: string,
  day: string,
): { link: string; creator: string } {
  // The creator's shard tag, like every key of the admission script (one hash slot).
  const tag = shardTagOf(edgeShardOf(creatorId));
  return {
    link: linkKeyIn(tag, linkId, day),
    creator: `uv:${tag}:c:${creatorId}:${environment}:${day}`,
  };
}

const linkKeyIn = (tag: string, linkId: string, day: string): string =>
  `uv:${tag}:l:${linkId}:${day}`;

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

/**
 * PFCOUNT over several HyperLogLogs of one creator (one hash slot): the distinct visitors of
 * their union. The twin keeps exact sets (structureAt) and counts their union.
 */
export const COUNT_UNIQUE_VISITORS_SCRIPT: KvScript<number> = {
  name: 'countUniqueVisitors',
  lua: `return redis.call('PFCOUNT', unpack(KEYS))`,
  runInMemory(data, keys) {
    const union = new Set<string>();
    for (const key of keys) {
      for (const hash of data.structureAt(key, () => new Set<string>())) union.add(hash);
    }
    return union.size;
  },
};
