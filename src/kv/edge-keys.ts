import { clientAddressKey } from './client-address-key';

/**
 * Keys of the edge redirector. A click's keys (per-IP window, creator window, quota counter,
 * click stream) share one hash tag, the creator's shard, so a single Lua script admits and
 * records a click atomically and the same code runs on Redis Cluster (DESIGN section 3).
 * The per-IP window is therefore kept per creator: an address hammering one creator's links
 * is stopped at 200/min without a second round trip. An IPv6 address counts by its /64
 * (client-address-key.ts), so rotating the interface bits buys no fresh window.
 */
export const EDGE_SHARDS = 16;

/** FNV-1a: stable across processes and releases, unlike a language hash. */
export function edgeShardOf(creatorId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < creatorId.length; i++) {
    hash ^= creatorId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % EDGE_SHARDS;
}

const tagOf = (shard: number): string => `{e${shard}}`;

export const clickStreamKey = (shard: number): string => `clicks:${tagOf(shard)}`;

export const CLICK_STREAMS: readonly string[] = Array.from({ length: EDGE_SHARDS }, (_, shard) =>
  clickStreamKey(shard),
);

export function edgeKeysOf(creatorId: string, clientIp: string, periodId: string) {
  const shard = edgeShardOf(creatorId);
  const tag = tagOf(shard);
  return {
    ipWindow: `edge:${tag}:ip:${creatorId}:${clientAddressKey(clientIp)}`,
    creatorWindow: `edge:${tag}:cr:${creatorId}`,
    quota: quotaKeyIn(tag, creatorId, periodId),
    stream: clickStreamKey(shard),
  };
}

const quotaKeyIn = (tag: string, creatorId: string, periodId: string): string =>
  `quota:${tag}:${creatorId}:${periodId}`;

/** The creator's click counter for a billing period (`YYYY-MM`). */
export function quotaCounterKey(creatorId: string, periodId: string): string {
  return quotaKeyIn(tagOf(edgeShardOf(creatorId)), creatorId, periodId);
}
