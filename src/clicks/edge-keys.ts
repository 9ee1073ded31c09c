import type { KeyEnvironment } from '../common/access/auth-context';
import { clickStreamKey, edgeShardOf, shardTagOf } from '../analytics/click-streams';
import { clientAddressKey } from '../rate-limit/client-address-key';

/**
 * Keys of a click's admission at the edge: per-IP window, creator window, quota counter and
 * click stream share one hash tag, the creator's shard, so one script admits and records a
 * click atomically, on Redis Cluster too (docs/design.md section 3). The per-IP window is therefore
 * kept per creator: an address hammering one creator's links is stopped at 200/min without
 * a second round trip. An IPv6 address counts by its /64 (client-address-key.ts), so
 * rotating the interface bits buys no fresh window.
 *
 * Test links (the test-key sandbox) have a creator window and a quota counter of their own,
 * so a test run can neither throttle live traffic nor touch the month's billed usage; the
 * per-IP window is one per creator for both, since it guards the visitor side.
 */
export interface EdgeKeys {
  ipWindow: string;
  creatorWindow: string;
  quota: string;
  stream: string;
}

export function edgeKeysOf(
  creatorId: string,
  environment: KeyEnvironment,
  clientIp: string,
  periodId: string,
): EdgeKeys {
  const shard = edgeShardOf(creatorId);
  const tag = shardTagOf(shard);
  return {
    ipWindow: `edge:${tag}:ip:${creatorId}:${clientAddressKey(clientIp)}`,
    creatorWindow: `edge:${tag}:cr:${creatorId}${environmentSuffix(environment)}`,
    quota: quotaKeyIn(tag, creatorId, environment, periodId),
    stream: clickStreamKey(shard),
  };
}

// Live names carry no suffix: quota counters outlive deploys (they are the month's usage
// until PostgreSQL's count rebuilds them), so a live key's name must not change.
const environmentSuffix = (environment: KeyEnvironment): string =>
  environment === 'live' ? '' : `:${environment}`;

const quotaKeyIn = (
  tag: string,
  creatorId: string,
  environment: KeyEnvironment,
  periodId: string,
): string => `quota:${tag}:${creatorId}${environmentSuffix(environment)}:${periodId}`;

/** The creator's click counter of one environment for a billing period (`YYYY-MM`). */
export function quotaCounterKey(
  creatorId: string,
  environment: KeyEnvironment,
  periodId: string,
): string {
  return quotaKeyIn(shardTagOf(edgeShardOf(creatorId)), creatorId, environment, periodId);
}

/** The key of one minute bucket of a window key (same hash tag, so the same slot). */
export const bucketKeyOf = (windowKey: string, bucket: number): string => `${windowKey}:${bucket}`;

/**
 * A capped link's counted clicks (docs/edge.md "Expiry and click caps"), beside its creator's
 * other edge keys (the same hash tag), so the admission script checks and counts it with the
 * click. All-time, rebuilt from PostgreSQL's count of the link's clicks when missing.
 */
export const linkCapKeyOf = (creatorId: string, linkId: string): string =>
  `edge:${shardTagOf(edgeShardOf(creatorId))}:cap:${linkId}`;
