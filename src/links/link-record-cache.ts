/**
 * The shared half of the edge's cache of link routing records: the Redis key a record is
 * cached under and the pub/sub channel every node hears evictions on. Links own it, so any
 * process that changes links (the API, probes, the admin CLI) evicts the same way; the edge
 * (redirect/link-records.service.ts) reads and fills it.
 */
export const LINK_INVALIDATION_CHANNEL = 'linkpilot:links:invalidate';

/** v2: records carry `environment`; a v1 record (without it) is never read, and expires. */
export const linkRecordCacheKey = (linkId: string): string => `linkrec:v2:${linkId}`;
