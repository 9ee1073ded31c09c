import type { RoutingPresetId, SignalName, UtmOverride } from './routing-types';

export type SignalWeights = Readonly<Record<SignalName, number>>;

const BALANCED: SignalWeights = {
  // epc_base is the USD base, never an exponent; 1 is what the trace shows.
  epc_base: 1,
  trend: 1,
  // fx converts epc_base to USD and does not multiply the score.
  fx: 0,
  device: 1,
  deeplink: 1,
  region_match: 1,
  health: 1,
  refund: 1,
  offer: 1,
  net_trust: 1,
  category: 1,
  cod: 1,
  ua_penalty: 1,
  utm: 1,
  availability: 1,
  deal: 1,
};

/**
 * Exponents of each signal per preset (SPEC item 10, docs/design.md section 4). All are >= 0, so a
 * candidate no better on any signal can never overtake one that is: presets are advisory.
 */
export const PRESET_WEIGHTS: Readonly<Record<RoutingPresetId, SignalWeights>> = {
  // Balanced and conservative on risk.
  default: BALANCED,
  // Mobile-first: device bias +20%, a stronger pull to the visitor's own storefront (fast
  // geo-fallback), less tolerance for redirect depth, deep-link bonus matters less in a webview.
  link_in_bio: { ...BALANCED, device: 1.2, region_match: 1.5, health: 1.2, deeplink: 0.8 },
  // EPC-aggressive: deep-link bonus counts more, redirect depth and refunds/trust less.
  long_form: { ...BALANCED, deeplink: 1.5, health: 0.6, refund: 0.8, net_trust: 0.8 },
};

/** The UTM values a preset adds to a routed URL; the link's `utmOverride` replaces them key by key. */
export const PRESET_UTM: Readonly<Record<RoutingPresetId, Readonly<UtmOverride>>> = {
  default: { utm_source: 'linkpilot', utm_medium: 'affiliate', utm_campaign: 'linkpilot_default' },
  link_in_bio: {
    utm_source: 'linkpilot',
    utm_medium: 'link_in_bio',
    utm_campaign: 'linkpilot_link_in_bio',
  },
  long_form: {
    utm_source: 'linkpilot',
    utm_medium: 'long_form',
    utm_campaign: 'linkpilot_long_form',
  },
};
