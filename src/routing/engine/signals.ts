import type { FxSnapshot } from '../../fx/math/fx-snapshot';
import type {
  DeviceBiases,
  MerchantProfile,
  MerchantRegion,
  ProductCategory,
} from '../../merchants/kb/merchant-profile';
import { formatBias } from './explain';
import type { BlendedEpc } from './learned-epc';
import type { Candidate } from './list-candidates';
import type { SignalWeights } from './presets';
import type {
  DeepLinkStatus,
  DeviceType,
  HealthStatus,
  MobileOs,
  RegionTier,
  RoutingSignal,
  SignalName,
  VisitorContext,
} from './routing-types';

/** Everything one candidate's signals depend on. */
export interface SignalContext {
  merchant: MerchantProfile;
  candidate: Candidate;
  market: string;
  category: ProductCategory | undefined;
  deepLinkStatus: DeepLinkStatus;
  healthStatus: HealthStatus;
  visitor: VisitorContext;
  fx: FxSnapshot;
  weights: SignalWeights;
  /** Learned routing: the candidate's blend, which epc_base takes instead of the bare hint. */
  blend?: BlendedEpc;
}

/** A signal's value with its plain-words label. */
export interface SignalReading {
  value: number;
  label: string;
}

const NO_LIVE_DATA = 'no live data; static profile';

/** Region-match multiplier per tier: the visitor's own storefront is preferred. */
const REGION_MATCH_BY_TIER: Readonly<Record<RegionTier, number>> = {
  1: 1,
  2: 0.97,
  3: 0.93,
};

/** Redirect-depth health multiplier (SPEC "States and transitions": warning small, critical 0.20). */
const HEALTH_MULTIPLIER: Readonly<Record<HealthStatus, number>> = {
  ok: 1,
  unknown: 1,
  warning: 0.95,
  critical: 0.8,
};

const IN_APP_BROWSER_PENALTY = 0.95;
const UTM_STRIPPED_MULTIPLIER = 0.98;
const NOT_SHIPPING_MULTIPLIER = 0.9;

/** epc_base: the hint converted to USD with rates in units of currency per 1 USD. */
export function readEpcBase(candidate: Candidate): SignalReading {
  const { epcHint, fxRate, networkId, regionKey, region } = candidate;
  const usd = epcHint / fxRate;
  return {
    value: usd,
    label: `${epcHint} ${region.baseCurrency} per click on ${networkId} in ${regionKey} = ${usd.toFixed(4)} USD`,
  };
}

/** epc_base in learned routing: the hint in USD shrunk toward the creator's realised EPC. */
function readBlendedEpcBase(candidate: Candidate, blend: BlendedEpc): SignalReading {
  return {
    value: blend.blendedEpcUsd,
    label:
      `${readEpcBase(candidate).label}, blended with ${blend.clicks} observed clicks earning ` +
      `${blend.commissionUsd.toFixed(2)} USD (weight ${blend.weight.toFixed(4)}) = ` +
      `${blend.blendedEpcUsd.toFixed(4)} USD`,
  };
}

/** fx: the rate used, shown for audit; it converts epc_base and has weight 0. */
export function readFx(currency: string, rate: number, fx: FxSnapshot): SignalReading {
  const shown = rate >= 1 ? rate.toFixed(2) : rate.toFixed(4);
  const freshness = fx.isStale ? 'stale' : 'fresh';
  return {
    value: rate,
    label: `1 USD = ${shown} ${currency} (${fx.source}, ${freshness}); converts epc_base, not a multiplier`,
  };
}

/**
 * device: 1 + the region's bias for the visitor. Desktop uses the desktop bias; mobile and
 * tablet use the OS's bias, or the mean of ios and android when the OS is unknown.
 */
export function readDevice(
  biases: DeviceBiases,
  device: DeviceType,
  os: MobileOs | null,
): SignalReading {
  if (device === 'desktop') {
    return { value: 1 + biases.desktop, label: `desktop bias ${formatBias(biases.desktop)}` };
  }
  if (os !== null) {
    return { value: 1 + biases[os], label: `${device} on ${os}: bias ${formatBias(biases[os])}` };
  }
  const mean = (biases.ios + biases.android) / 2;
  return {
    value: 1 + mean,
    label: `${device}, OS unknown: mean of ios ${formatBias(biases.ios)} and android ${formatBias(biases.android)}`,
  };
}

/** deeplink: 1 + the region's multiplier, only for a supported and validated deep link. */
export function readDeepLink(region: MerchantRegion, status: DeepLinkStatus): SignalReading {
  if (!region.deepLinkSupported) {
    return { value: 1, label: 'storefront does not support deep links' };
  }
  if (status !== 'validated') {
    return { value: 1, label: `deep link ${status}: no bonus` };
  }
  return {
    value: 1 + region.deepLinkMultiplier,
    label: `deep link validated: ${formatBias(region.deepLinkMultiplier)}`,
  };
}

export function readRegionMatch(
  tier: RegionTier,
  regionKey: string,
  market: string,
): SignalReading {
  const labels: Record<RegionTier, string> = {
    1: `${market}'s own storefront`,
    2: `storefront ${regionKey} ships to ${market}`,
    3: `GLOBAL storefront for ${market}`,
  };
  return { value: REGION_MATCH_BY_TIER[tier], label: labels[tier] };
}

export function readHealth(status: HealthStatus): SignalReading {
  return { value: HEALTH_MULTIPLIER[status], label: `link health ${status}` };
}

export function readRefund(refundRateEstimate: number): SignalReading {
  return {
    value: 1 - refundRateEstimate,
    label: `refund rate estimate ${round(refundRateEstimate * 100)}%`,
  };
}

/** net_trust: 0.85 to 1.00 with the region's trust score. */
export function readNetTrust(trustScore: number): SignalReading {
  return { value: 0.85 + (0.15 * trustScore) / 100, label: `region trust score ${trustScore}/100` };
}

export function readCategory(
  region: MerchantRegion,
  category: ProductCategory | undefined,
): SignalReading {
  if (category === undefined) {
    return { value: 1, label: 'no category given' };
  }
  const multiplier = region.categoryMultipliers[category];
  return multiplier === undefined
    ? { value: 1, label: `no multiplier for ${category}` }
    : { value: multiplier, label: `${category} multiplier ${multiplier}` };
}

export function readCod(codFactor: number): SignalReading {
  return { value: codFactor, label: `cash-on-delivery factor ${codFactor}` };
}

export function readUaPenalty(isInAppBrowser: boolean): SignalReading {
  return isInAppBrowser
    ? { value: IN_APP_BROWSER_PENALTY, label: 'in-app browser' }
    : { value: 1, label: 'regular browser' };
}

export function readUtm(utmPreservation: boolean): SignalReading {
  return utmPreservation
    ? { value: 1, label: 'merchant keeps UTM parameters' }
    : { value: UTM_STRIPPED_MULTIPLIER, label: 'merchant may strip UTM parameters' };
}

/** availability: 1 when the storefront ships to the market or everywhere, else 0.9. */
export function readAvailability(shipsTo: readonly string[] | null, market: string): SignalReading {
  if (shipsTo === null) {
    return { value: 1, label: 'ships worldwide' };
  }
  return shipsTo.includes(market)
    ? { value: 1, label: `ships to ${market}` }
    : { value: NOT_SHIPPING_MULTIPLIER, label: `${market} is not in shipsToCountries` };
}

/**
 * The 16 signals of one candidate in trace order, each with its preset weight. trend, offer
 * and deal are neutral until live network data and private deals exist.
 */
export function computeSignals(context: SignalContext): RoutingSignal[] {
  const { merchant, candidate, market, visitor, weights } = context;
  const { region } = candidate;
  const readings: [SignalName, SignalReading][] = [
    [
      'epc_base',
      context.blend === undefined
        ? readEpcBase(candidate)
        : readBlendedEpcBase(candidate, context.blend),
    ],
    ['trend', { value: 1, label: NO_LIVE_DATA }],
    ['fx', readFx(region.baseCurrency, candidate.fxRate, context.fx)],
    ['device', readDevice(region.deviceBiases, visitor.device, visitor.os)],
    ['deeplink', readDeepLink(region, context.deepLinkStatus)],
    ['region_match', readRegionMatch(candidate.tier, candidate.regionKey, market)],
    ['health', readHealth(context.healthStatus)],
    ['refund', readRefund(region.refundRateEstimate)],
    ['offer', { value: 1, label: NO_LIVE_DATA }],
    ['net_trust', readNetTrust(region.trustScore)],
    ['category', readCategory(region, context.category)],
    ['cod', readCod(region.codFactor)],
    ['ua_penalty', readUaPenalty(visitor.isInAppBrowser)],
    ['utm', readUtm(merchant.merchantCapabilities.utmPreservation)],
    ['availability', readAvailability(region.availabilityFlags.shipsToCountries, market)],
    ['deal', { value: 1, label: 'no private deal' }],
  ];
  return readings.map(([name, { value, label }]) => ({
    name,
    value,
    weight: weights[name],
    label,
    source: name === 'deal' ? 'creator' : 'essential',
  }));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
