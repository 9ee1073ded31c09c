// Shape of one merchant profile of the knowledge base (seeds/merchants/<merchantId>.json).
// The JSON Schema beside this file describes the same shape for editors and ajv.

// Network ids and currencies have one home each; re-exported for the profile's readers.
import { NETWORK_IDS, type NetworkId } from '../../networks/network-ids';
import { SUPPORTED_CURRENCIES, type CurrencyCode } from '../../fx/math/fx-snapshot';

export { NETWORK_IDS, SUPPORTED_CURRENCIES };
export type { NetworkId };
type SupportedCurrency = CurrencyCode;

/** ProductCategory [S]. */
export const PRODUCT_CATEGORIES = [
  'electronics',
  'computers',
  'mobile',
  'fashion',
  'accessories',
  'beauty',
  'home',
  'furniture',
  'books',
  'sports',
  'toys',
  'grocery',
  'automotive',
  'health',
  'garden',
  'tools',
  'handmade',
  'collectibles',
  'other',
] as const;

export type ProductCategory = (typeof PRODUCT_CATEGORIES)[number];

/** Direct merchants and the only network id their in-house programme routes through. */
export const IN_HOUSE_NETWORK_BY_MERCHANT: Readonly<Record<string, NetworkId>> = {
  amazon: 'amazon_associates',
  flipkart: 'flipkart_affiliate',
  noon: 'noon_affiliates',
  jumia: 'jumia_kol',
  takealot: 'takealot_affiliates',
};

/** Region key of a storefront that serves no single country. */
export const GLOBAL_REGION = 'GLOBAL';

type ProgramType = 'network' | 'direct';
type ProgramStatus = 'open' | 'closed';

export interface MerchantCapabilities {
  deepLinking: boolean;
  appIndexing: boolean;
  utmPreservation: boolean;
  multiNetworkRouting: boolean;
}

export interface RegionDefaults {
  baseCurrency: SupportedCurrency;
  /** Fallback EPC in USD when a region has no usable hint. */
  epcBaseUsd: number;
  /** 0-100. */
  trustScore: number;
}

/** Each value a relative adjustment in [-0.05, 0.10]. */
export interface DeviceBiases {
  ios: number;
  android: number;
  desktop: number;
}

interface AvailabilityFlags {
  globalAvailability: boolean;
  stockAware: boolean;
  /** ISO alpha-2 codes; null means the storefront ships globally. */
  shipsToCountries: string[] | null;
}

export interface MerchantRegion {
  /** Canonical hostname of this storefront; one of `hostnames`. */
  storefront: string;
  /** Every hostname that serves this storefront, the storefront included. */
  hostnames: string[];
  /** Currency of `epcHints`. */
  baseCurrency: SupportedCurrency;
  /** Network id -> EPC per click in `baseCurrency`; 0 means unavailable. */
  epcHints: Partial<Record<NetworkId, number>>;
  /** 0-100. */
  trustScore: number;
  /** Recommended order, used to break ties. */
  preferredNetworks: NetworkId[];
  deepLinkSupported: boolean;
  /** 0.0-0.12. */
  deepLinkMultiplier: number;
  deviceBiases: DeviceBiases;
  availabilityFlags: AvailabilityFlags;
  /** ProductCategory -> multiplier in [0.5, 1.5]. */
  categoryMultipliers: Partial<Record<ProductCategory, number>>;
  /** 0-1. */
  refundRateEstimate: number;
  /** 0-1; below 1 in cash-on-delivery markets. */
  codFactor: number;
  /** The merchant forbids canonicalising or re-routing links to this storefront. */
  passthroughRequired: boolean;
}

export interface PathRule {
  /** JS RegExp source, matched against the percent-decoded pathname without trailing slash. */
  match: string;
  /** Optional RegExp flags (no `g`/`y`: rules are stateless). */
  flags?: string;
  /** Replacement path; `$<name>` inserts a named group (empty when it did not take part). */
  canonicalPath: string;
  /**
   * Params a page whose canonical path this rule matches keeps (names, or prefixes ending in
   * `*`), instead of the profile's keepParams/dropParams: a product page keeps its variant
   * selectors, not the search terms the profile keeps for its search pages.
   */
  keepParams?: string[];
}

/**
 * A kept param that does not make a different product, so the canonicaliser drops it: a UI-state
 * flag or variant selector at its default value, or a selector naming the item the path names.
 * At least one of `defaultValues` and `sameAsPathGroup` is set.
 */
export interface RedundantParamRule {
  /** Param name, compared case-insensitively like keepParams and dropParams. */
  param: string;
  /** Values (after percent-decoding) that select what the page shows without the param. */
  defaultValues?: string[];
  /** Named group of the path rule the canonical path matches; equal to it, the param restates the path. */
  sameAsPathGroup?: string;
}

interface CanonicalizationExample {
  input: string;
  canonical: string;
}

export interface CanonicalisationRules {
  /** First match wins; no match keeps the path. Results never end in a slash (except root). */
  pathRules: PathRule[];
  /** Allow-list of query params kept in their original order; null keeps all but `dropParams`. */
  keepParams: string[] | null;
  /** Names, or prefixes ending in `*`; applied when `keepParams` is null. */
  dropParams: string[];
  /** Kept params dropped again when they restate the page (see RedundantParamRule). */
  redundantParams?: RedundantParamRule[];
  examples: CanonicalizationExample[];
}

export interface MerchantMeta {
  /** YYYY-MM-DD-NN. */
  version: string;
  /** ISO 8601 date-time. */
  lastUpdated: string;
  /** 0-100; the knowledge base refuses profiles under 70. */
  dataConfidenceScore: number;
  changelogNotes: string;
}

export interface MerchantProfile {
  /** Lowercase, hyphenated; equals the file name. */
  merchantId: string;
  displayName: string;
  description: string;
  programType: ProgramType;
  /** A closed programme is always passthrough. */
  programStatus: ProgramStatus;
  categories: ProductCategory[];
  /** Exactly the union of every region's hostnames. */
  domains: string[];
  /** [] for direct programmes. */
  supportedNetworks: NetworkId[];
  merchantCapabilities: MerchantCapabilities;
  regionDefaults: RegionDefaults;
  /** ISO alpha-2 markets the merchant may not be routed to at all; such a market has no region. */
  bannedMarkets: string[];
  /** Keyed by ISO alpha-2 code or GLOBAL. */
  regions: Record<string, MerchantRegion>;
  canonicalization: CanonicalisationRules;
  meta: MerchantMeta;
}

/** One finding of the knowledge-base checks; `field` is a dotted path into the profile. */
export interface KbProblem {
  file: string;
  field: string;
  rule: string;
  message: string;
}
