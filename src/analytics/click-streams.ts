/**
 * The click streams, one per edge shard. A creator's clicks go to its shard's stream, and the
 * keys that admit a click (clicks/edge-keys.ts) carry the same hash tag, so a single Lua
 * script admits and records a click atomically and the same code runs on Redis Cluster
 * (docs/design.md section 3).
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

/** The Redis Cluster hash tag of a shard: every key with it lives in one slot. */
export const shardTagOf = (shard: number): string => `{e${shard}}`;

export const clickStreamKey = (shard: number): string => `clicks:${shardTagOf(shard)}`;

export const CLICK_STREAMS: readonly string[] = Array.from({ length: EDGE_SHARDS }, (_, shard) =>
  clickStreamKey(shard),
);
