import type { RoutingTrace } from '../routing/engine';
import type { LinkEntity } from './link.entity';
import { linkLimitsResponseOf } from './link-limits';
import type { LinkResponse, LinkSummaryResponse } from './link.response';
import { toRuleView } from './redirect-rule';

/** The edge redirect URL of a link: `{redirect_base_url}/r/<linkId>`. */
const linkpilotUrlOf = (redirectBaseUrl: string, linkId: string): string =>
  `${redirectBaseUrl}/r/${linkId}`;

/** A link's branded domain and slug (docs/domains.md), absent for a link without one. */
const brandingOf = (link: LinkEntity): { domain?: string; slug?: string } =>
  typeof link.domainHostname === 'string' && typeof link.slug === 'string'
    ? { domain: link.domainHostname, slug: link.slug }
    : {};

/** A link on a branded domain is shared as `https://<domain>/<slug>`. */
const sharedUrlOf = (link: LinkEntity, redirectBaseUrl: string): string => {
  const { domain, slug } = brandingOf(link);
  return domain === undefined
    ? linkpilotUrlOf(redirectBaseUrl, link.id)
    : `https://${domain}/${slug}`;
};

/**
 * What a link serves: with passthrough on, the original URL byte for byte and no canonical
 * URL, region or network (the decision kept for when passthrough is turned off stays stored).
 */
function servedRoute(link: LinkEntity) {
  return link.passthroughEnabled
    ? { routedUrl: link.originalUrl, canonicalUrl: '', region: null, networkId: null }
    : {
        routedUrl: link.routedUrl,
        canonicalUrl: link.canonicalUrl,
        region: link.region,
        networkId: link.networkId,
      };
}

export function toLinkSummary(link: LinkEntity, redirectBaseUrl: string): LinkSummaryResponse {
  const served = servedRoute(link);
  return {
    linkId: link.id,
    title: link.title,
    originalUrl: link.originalUrl,
    routedUrl: served.routedUrl,
    linkpilotUrl: sharedUrlOf(link, redirectBaseUrl),
    ...brandingOf(link),
    merchantId: link.merchantId,
    region: served.region,
    networkId: served.networkId,
    preset: link.preset,
    ...(link.category !== null ? { category: link.category } : {}),
    passthrough: {
      enabled: link.passthroughEnabled,
      ...(link.passthroughEnabled && link.passthroughReason !== null
        ? { reason: link.passthroughReason }
        : {}),
      ...(link.passthroughEnabled && link.passthroughEnabledAt !== null
        ? { enabledAt: link.passthroughEnabledAt.toISOString() }
        : {}),
    },
    groupId: link.groupId,
    createdAt: link.createdAt.toISOString(),
  };
}

export function toLinkResponse(link: LinkEntity, redirectBaseUrl: string): LinkResponse {
  return {
    ...toLinkSummary(link, redirectBaseUrl),
    canonicalUrl: servedRoute(link).canonicalUrl,
    environment: link.environment,
    ...(link.networkOverride !== null ? { networkOverride: link.networkOverride } : {}),
    ...(link.utmOverride !== null ? { utmOverride: link.utmOverride } : {}),
    updatedAt: link.updatedAt.toISOString(),
    confidence: link.passthroughEnabled ? 0 : link.confidence,
    deepLinkUsed: !link.passthroughEnabled && link.deepLinkUsed,
    normalizedEpcUsd: link.passthroughEnabled ? 0 : link.normalizedEpcUsd,
    healthStatus: link.healthStatus,
    deepLinkStatus: link.deepLinkStatus,
    lastHealthCheckAt: link.lastHealthCheckAt?.toISOString() ?? null,
    notes: link.notes,
    forwardQuery: link.forwardQuery,
    attribution: link.attribution,
    ...linkLimitsResponseOf(link),
    outcome: link.passthroughEnabled ? 'passthrough' : link.outcome,
    crcTrace: link.crcTrace as unknown as RoutingTrace,
    ...(link.rules !== null ? { rules: link.rules.map(toRuleView) } : {}),
  };
}
