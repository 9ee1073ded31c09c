import type { NetworkId } from '../../merchants/kb/merchant-profile';
import { trackingParamsFor } from '../../networks/network-registry';
import { PRESET_UTM } from './presets';
import type { RoutingPresetId, UtmOverride } from './routing-types';

const UTM_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

export interface RoutedUrlInput {
  /** canonicaliseUrl's result on the submitted storefront. */
  canonicalUrl: string;
  /** Region key of the submitted storefront (null when the profile does not list the host). */
  sourceRegion: string | null;
  /** Region key and storefront the visitor goes to. */
  targetRegion: string;
  targetStorefront: string;
  targetDeepLinkSupported: boolean;
  networkId: NetworkId;
  affiliateId: string;
  preset: RoutingPresetId;
  utmOverride?: UtmOverride;
}

export interface RoutedUrl {
  routedUrl: string;
  /** The product path was kept on a storefront that supports deep links. */
  deepLinkUsed: boolean;
}

/**
 * The URL a routed visitor gets: the canonical path and kept params on the winning storefront,
 * then the network's tracking params for the creator's affiliate id, then the preset's UTM
 * params overridden key by key by the link's `utmOverride`. Moving to another storefront keeps
 * the path only when that storefront supports deep links; otherwise it goes to its home page.
 * A tracking param the network needs (e.g. Awin's `utm_source=awin`) is never overwritten by
 * UTM values, so attribution survives.
 */
export function buildRoutedUrl(input: RoutedUrlInput): RoutedUrl {
  const canonical = new URL(input.canonicalUrl);
  const isPathKept = input.targetRegion === input.sourceRegion || input.targetDeepLinkSupported;
  const url = new URL(
    isPathKept
      ? `https://${input.targetStorefront}${canonical.pathname}${canonical.search}`
      : `https://${input.targetStorefront}/`,
  );

  const trackingKeys = new Set<string>();
  for (const [name, value] of trackingParamsFor(input.networkId, input.affiliateId)) {
    url.searchParams.set(name, value);
    trackingKeys.add(name);
  }

  const utm: UtmOverride = { ...PRESET_UTM[input.preset] };
  for (const key of UTM_KEYS) {
    const override = input.utmOverride?.[key];
    if (override !== undefined) {
      utm[key] = override;
    }
  }
  for (const key of UTM_KEYS) {
    const value = utm[key];
    // An empty value adds nothing: `utm_term=` would only look like a broken link.
    if (value !== undefined && value !== '' && !trackingKeys.has(key)) {
      url.searchParams.set(key, value);
    }
  }

  return { routedUrl: url.href, deepLinkUsed: input.targetDeepLinkSupported && isPathKept };
}
