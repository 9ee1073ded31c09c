import { clickStreamKey, edgeShardOf, shardTagOf } from '../analytics/click-streams';
import { clientAddressKey } from '../rate-limit/client-address-key';

/**
 * Keys of a click's admission at the edge: per-IP window, creator window, quota counter and
 * click stream share one hash tag, the creator's shard, so one script admits and records a
 * click atomically, on Redis Cluster too (DESIGN section 3). The per-IP window is therefore
 * kept per creator: an address hammering one creator's links is stopped at 200/min without
 * a second round trip. An IPv6 address counts by its /64 (client-address-key.ts), so
 * rotating the interface bits buys no fresh window.
 */
export interface EdgeKeys {
  ipWindow: string;
  creatorWindow: string;
  quota: string;
  stream: string;
}

export function edgeKeysOf(creatorId: string, clientIp: string, periodId: string): EdgeKeys {
  const shard = edgeShardOf(creatorId);
  const tag = shardTagOf(shard);
  return {
    ipWindow: `edge:${tag}:ip:${creatorId}:${clientAddressKey(clientIp)}`,
    creatorWindow: `edge:${tag}:cr:${creatorId}`,
    quota: quotaKeyIn(tag, creatorId, periodId),
    stream: clickStreamKey(shard),
  };
}

// Quota counters outlive deploys (they are the month's usage until PostgreSQL's count
// rebuilds them): this name must not change.
const quotaKeyIn = (tag: string, creatorId: string, periodId: string): string =>
  `quota:${tag}:${creatorId}:${periodId}`;

/** The creator's click counter for a billing period (`YYYY-MM`). */
export function quotaCounterKey(creatorId: string, periodId: string): string {
  return quotaKeyIn(shardTagOf(edgeShardOf(creatorId)), creatorId, periodId);
}

/** The key of one minute bucket of a window key (same hash tag, so the same slot). */
export const bucketKeyOf = (windowKey: string, bucket: number): string => `${windowKey}:${bucket}`;
