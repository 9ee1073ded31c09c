import type { KeyEnvironment } from '../common/access/auth-context';
import type { ProductCategory } from '../merchants/kb/merchant-profile';
import type {
  LinkProbes,
  NetworkOverridePin,
  RoutingPresetId,
  RoutingReason,
  UtmOverride,
} from '../routing/engine/routing-types';
import type { StoredRoute } from './link-destination';
import type { LinkEntity } from './link.entity';
import type { StoredRedirectRule } from './redirect-rule';
import { LinkLimits, linkLimitsOf } from './link-limits';

/**
 * What the edge needs of a link (links own the table; the edge reads it through
 * LinksService.findRoutingRecords), small enough to cache in process and in Redis: how to route
 * it per visitor, and the route stored at creation for requests with no visitor context.
 */
export interface LinkRoutingRecord {
  linkId: string;
  /** Changes whenever anything a routing decision depends on changes (edits, probe results). */
  version: string;
  creatorId: string;
  /** Test links' clicks are test clicks: recorded apart, never counted against the quota. */
  environment: KeyEnvironment;
  originalUrl: string;
  merchantId: string | null;
  /**
   * Visitors go to the original URL: passthrough is on, or the link was created in
   * passthrough, so it was never routed and turning passthrough off keeps it unrouted.
   */
  passthrough: boolean;
  preset: RoutingPresetId;
  category: ProductCategory | null;
  networkOverride: NetworkOverridePin | null;
  utmOverride: UtmOverride | null;
  /** Visitors' query parameters go on to the destination (redirect/forward-visitor-query.ts). */
  forwardQuery: boolean;
  /** Click ids to the networks; null: the creator's setting (README "Conversions"). */
  attribution: boolean | null;
  probes: LinkProbes;
  stored: StoredRoute;
  /** Redirect rules (docs/redirect-rules.md); absent when the link has none. */
  rules?: StoredRedirectRule[];
  /** Expiry and click cap (link-limits.ts); absent when the link has neither. */
  limits?: LinkLimits;
}

/**
 * The link's columns a routing record is made of: the edge reads only these
 * (LinksRepository.findLiveRoutingFields), not the whole row with its routing trace.
 */
export const LINK_ROUTING_FIELDS = [
  'id',
  'updatedAt',
  'creatorId',
  'environment',
  'originalUrl',
  'merchantId',
  'passthroughEnabled',
  'routingReason',
  'preset',
  'category',
  'networkOverride',
  'utmOverride',
  'forwardQuery',
  'attribution',
  'deepLinkStatus',
  'healthStatus',
  'routedUrl',
  'region',
  'networkId',
  'outcome',
  'normalizedEpcUsd',
  'confidenceFactor',
  'deepLinkUsed',
  'rules',
  'expiresAt',
  'maxClicks',
  'expiredDestination',
] as const satisfies readonly (keyof LinkEntity)[];

export type LinkRoutingFields = Pick<LinkEntity, (typeof LINK_ROUTING_FIELDS)[number]>;

/** The engine's reason for a link created in passthrough: routing never ran for it. */
const NEVER_ROUTED_REASON: RoutingReason = 'passthrough_requested';

export function toLinkRoutingRecord(link: LinkRoutingFields): LinkRoutingRecord {
  const record = routingRecordOf(link);
  const limits = linkLimitsOf(link);
  return limits === undefined ? record : { ...record, limits };
}

function routingRecordOf(link: LinkRoutingFields): LinkRoutingRecord {
  return {
    linkId: link.id,
    version: `${link.updatedAt.getTime()}|${link.deepLinkStatus}|${link.healthStatus}`,
    creatorId: link.creatorId,
    environment: link.environment,
    originalUrl: link.originalUrl,
    merchantId: link.merchantId,
    passthrough: link.passthroughEnabled || link.routingReason === NEVER_ROUTED_REASON,
    preset: link.preset,
    category: link.category,
    networkOverride:
      link.networkOverride === null
        ? null
        : {
            networkId: link.networkOverride.networkId,
            ...(link.networkOverride.expiresAt
              ? { expiresAt: link.networkOverride.expiresAt }
              : {}),
          },
    utmOverride: link.utmOverride,
    forwardQuery: link.forwardQuery,
    attribution: link.attribution,
    probes: { deepLinkStatus: link.deepLinkStatus, healthStatus: link.healthStatus },
    stored: {
      routedUrl: link.routedUrl,
      region: link.region,
      networkId: link.networkId,
      outcome: link.outcome,
      normalizedEpcUsd: link.normalizedEpcUsd,
      confidenceFactor: link.confidenceFactor,
      deepLinkUsed: link.deepLinkUsed,
    },
    ...(link.rules !== null && link.rules.length > 0 ? { rules: link.rules } : {}),
  };
}
