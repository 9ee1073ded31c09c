// Plain data in and out of the routing engine (docs/design.md section 3). No framework types here:
// the redirect, the links service and POST /route map their own shapes onto these.
import type {
  MerchantProfile,
  NetworkId,
  ProductCategory,
} from '../../merchants/kb/merchant-profile';
import type { BlendedEpc, RouteLearning } from './learned-epc';

/** RoutingPresetId [S]; the [G] spellings are refused at the API edge, never seen here. */
export const ROUTING_PRESET_IDS = ['default', 'link_in_bio', 'long_form'] as const;
export type RoutingPresetId = (typeof ROUTING_PRESET_IDS)[number];

export type DeepLinkStatus = 'validated' | 'unchecked' | 'invalid' | 'ttl_expired';
export type HealthStatus = 'ok' | 'warning' | 'critical' | 'unknown';
export type DeviceType = 'desktop' | 'mobile' | 'tablet';
export type MobileOs = 'ios' | 'android';
export type RoutingOutcome = 'routed' | 'fallback' | 'passthrough';

/**
 * How a creator's links are scored: by the knowledge base's EPC hints, or by the hints blended
 * with the creator's own realised EPC per route (docs/routing.md section 10).
 */
export const ROUTING_MODES = ['hinted', 'learned'] as const;
export type RoutingMode = (typeof ROUTING_MODES)[number];

/** Why a decision is passthrough (the original URL, byte for byte). */
export type PassthroughReason =
  | 'passthrough_requested'
  | 'unsupported_merchant'
  | 'invalid_url'
  | 'programme_closed'
  | 'passthrough_required'
  | 'banned_market'
  | 'no_region_for_market'
  | 'no_candidates'
  | 'no_active_network_account';

/** Why a routed URL is a fallback: no storefront of the visitor's own, or an unusable pin. */
export type FallbackReason = 'visitor_region_missing' | 'network_override_unavailable';

/** Why a route is the visitor's own storefront: the best score, or the creator's pin. */
export type RoutedReason = 'best_epc' | 'network_override';

export type RoutingReason = PassthroughReason | FallbackReason | RoutedReason;

/** UtmOverride [S]: present values replace the preset's UTM values key by key. */
export interface UtmOverride {
  utm_source?: string;
  utm_medium?: string;
  utm_campaign?: string;
  utm_term?: string;
  utm_content?: string;
}

/** A per-link network pin; ignored from `expiresAt` (ISO 8601) on. */
export interface NetworkOverridePin {
  networkId: NetworkId;
  expiresAt?: string;
}

/** What the probes last said about the link (SPEC "States and transitions"). */
export interface LinkProbes {
  deepLinkStatus: DeepLinkStatus;
  healthStatus: HealthStatus;
}

/** Everything the engine needs to know about one link and its creator. */
export interface LinkRoutingInput {
  /** The URL as the creator submitted it; served untouched on passthrough. */
  originalUrl: string;
  /** The profile owning the URL's hostname; null for an unsupported domain. */
  merchant: MerchantProfile | null;
  preset: RoutingPresetId;
  category?: ProductCategory;
  /** The creator turned passthrough on for this link. */
  passthrough: boolean;
  networkOverride?: NetworkOverridePin;
  probes: LinkProbes;
  /** The creator's active affiliate id per network; a network without one is never routed. */
  networkAccounts: Partial<Record<NetworkId, string>>;
  utmOverride?: UtmOverride;
  /** The creator routes `learned`: the blend's settings and observations. Absent: `hinted`. */
  learning?: RouteLearning;
}

/** Who clicks: derived from the request (redirect) or the API body (POST /route, create). */
export interface VisitorContext {
  /** ISO 3166-1 alpha-2; null when unknown. */
  country: string | null;
  device: DeviceType;
  /** From the User-Agent; null for an API `mobile`/`tablet` (then the mean of both biases). */
  os: MobileOs | null;
  /** Instagram, TikTok and similar webviews lose more conversions. */
  isInAppBrowser: boolean;
}

/** The 16 signals of the crcTrace, in trace order. */
export const SIGNAL_NAMES = [
  'epc_base',
  'trend',
  'fx',
  'device',
  'deeplink',
  'region_match',
  'health',
  'refund',
  'offer',
  'net_trust',
  'category',
  'cod',
  'ua_penalty',
  'utm',
  'availability',
  'deal',
] as const;
export type SignalName = (typeof SIGNAL_NAMES)[number];

type SignalSource = 'essential' | 'enrichment' | 'creator';

/**
 * One scoring signal of a candidate. `epc_base` is the USD base the score starts from (its
 * weight is shown as 1 but never used as an exponent); every other signal multiplies the score
 * as `value ^ weight`. `fx` is informational: it shows the rate used and has weight 0.
 */
export interface RoutingSignal {
  name: SignalName;
  value: number;
  weight: number;
  label: string;
  source: SignalSource;
}

/** The comparison that separated two candidates: score, then the tie-breaks in order. */
export type RankStage = 'score' | 'preferred_network' | 'network_id' | 'region';

/** 1: the visitor's own storefront; 2: a storefront shipping there; 3: the GLOBAL storefront. */
export type RegionTier = 1 | 2 | 3;

/** One route as the crcTrace shows it. */
export interface TraceRoute {
  merchantId: string;
  networkId: NetworkId;
  region: string;
  /** The candidate's finalScore (USD per click, confidence-weighted). */
  routeScore: number;
  /** The candidate's intermediateScore in USD. */
  normalizedEpcUsd: number;
  /** 0-100: min(100, round(100 * C_r)). */
  confidence: number;
  /** Learned routing only: the hint, the observations and their blend (epc_base's value). */
  learning?: BlendedEpc;
}

interface TraceAlternative extends TraceRoute {
  whyNotChosen: string;
}

/** A (region, network) pair dropped before scoring; `networkId` is null for a whole region. */
export interface TraceExclusion {
  region: string;
  networkId: NetworkId | null;
  reason: string;
}

interface ScoringFormula {
  intermediateScore: number;
  confidenceFactor: number;
  finalScore: number;
}

/** What became of the link's network pin. */
export interface TraceNetworkOverride {
  networkId: NetworkId;
  status: 'applied' | 'unavailable' | 'expired';
}

/** The [G] crcTrace, plus `excluded`, `market`, `regionTier` and `networkOverride`. */
export interface RoutingTrace {
  /** Null for passthrough. */
  winner: TraceRoute | null;
  /** The other scored candidates, best first. */
  alternatives: TraceAlternative[];
  excluded: TraceExclusion[];
  /** The winner's 16 signals; empty for passthrough. */
  signals: RoutingSignal[];
  /** Null for passthrough. */
  scoringFormula: ScoringFormula | null;
  preset: RoutingPresetId;
  /** The country (or GLOBAL) the route was chosen for; null when routing never got that far. */
  market: string | null;
  regionTier: RegionTier | null;
  networkOverride: TraceNetworkOverride | null;
  /** Present only when the creator routes `learned`. */
  learning?: TraceLearning;
}

/** The learned mode's settings as a decision used them. */
interface TraceLearning {
  mode: 'learned';
  /** k: the clicks the hint is worth in each candidate's blend. */
  priorClicks: number;
  explorationShare: number;
  /** The visitor's exploration lane chose this route over the best one. */
  isExploration: boolean;
}

/** The engine's answer for one link and one visitor. */
export interface RoutingDecision {
  outcome: RoutingOutcome;
  reason: RoutingReason;
  /** Filled whenever the merchant is known, passthrough included (analytics needs it). */
  merchantId: string | null;
  /** Region key of the chosen storefront; null for passthrough. */
  region: string | null;
  networkId: NetworkId | null;
  /** Where the visitor goes; for passthrough exactly `originalUrl`. */
  routedUrl: string;
  /** canonicaliseUrl's result on the submitted storefront; '' for passthrough ([S]). */
  canonicalUrl: string;
  /** The winner's intermediateScore in USD; 0 for passthrough. */
  normalizedEpcUsd: number;
  /** The winner's C_r in [0.65, 1.10]; 0 for passthrough. */
  confidenceFactor: number;
  deepLinkUsed: boolean;
  trace: RoutingTrace;
}
