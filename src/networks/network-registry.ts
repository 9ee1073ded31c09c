import { NETWORK_IDS, NetworkId } from './network-ids';

/**
 * The 12 affiliate networks and in-house programmes (docs/design.md section 1): who they are, which
 * markets they serve, and the query parameters they need on a routed URL. `{affiliateId}` is
 * filled from the creator's network account. Pure data: routing and the API read it.
 */
export interface NetworkDefinition {
  networkId: NetworkId;
  displayName: string;
  kind: 'network' | 'in_house';
  /** ISO alpha-2 markets served; 'GLOBAL' means every market. */
  markets: readonly string[];
  /** Tracking parameters appended to the routed URL, values may hold `{affiliateId}`. */
  trackingParams: Readonly<Record<string, string>>;
  /**
   * The network's sub-id parameter: with attribution on, a routed URL carries the click's
   * record id in it, and the network sends it back with the conversion (README "Conversions"
   * lists each with its source). A visitor can never set it (forwardQuery).
   */
  subIdParam: string;
}

const EU = ['GB', 'IE', 'DE', 'FR', 'IT', 'ES', 'NL', 'BE', 'AT', 'PL', 'SE', 'DK'];

export const NETWORKS: readonly NetworkDefinition[] = [
  {
    networkId: 'awin',
    displayName: 'Awin',
    kind: 'network',
    markets: [...EU, 'US', 'CA', 'AU', 'BR'],
    trackingParams: { awc: 'lp_{affiliateId}', utm_source: 'awin' },
    subIdParam: 'clickref',
  },
  {
    networkId: 'cj',
    displayName: 'CJ Affiliate',
    kind: 'network',
    markets: ['US', 'CA', 'GB', 'DE', 'FR', 'ES', 'IT', 'AU', 'MX', 'BR'],
    trackingParams: { cjevent: 'lp_{affiliateId}', cjdata: 'linkpilot' },
    subIdParam: 'sid',
  },
  {
    networkId: 'impact',
    displayName: 'Impact',
    kind: 'network',
    markets: ['US', 'CA', 'GB', 'AU', 'DE', 'FR', 'NL', 'JP', 'SG', 'AE'],
    trackingParams: { irclickid: 'lp_{affiliateId}', irgwc: '1' },
    subIdParam: 'subId1',
  },
  {
    networkId: 'partnerize',
    displayName: 'Partnerize',
    kind: 'network',
    markets: ['GB', 'US', 'AU', 'DE', 'FR', 'IT', 'ES', 'JP', 'SG', 'AE', 'IN'],
    trackingParams: { clickref: 'lp_{affiliateId}' },
    subIdParam: 'pubref',
  },
  {
    networkId: 'cuelinks',
    displayName: 'Cuelinks',
    kind: 'network',
    markets: ['IN'],
    trackingParams: { cuelinks_subid: '{affiliateId}', utm_source: 'cuelinks' },
    subIdParam: 'subid',
  },
  {
    networkId: 'rakuten_affiliate',
    displayName: 'Rakuten Affiliate',
    kind: 'network',
    markets: ['JP', 'US', 'GB', 'FR', 'DE', 'AU', 'TW'],
    trackingParams: { scid: 'af_lp_{affiliateId}' },
    subIdParam: 'u1',
  },
  {
    networkId: 'involve_asia',
    displayName: 'Involve Asia',
    kind: 'network',
    markets: ['SG', 'MY', 'TH', 'ID', 'PH', 'VN', 'TW', 'KR'],
    trackingParams: { aff_sub: '{affiliateId}', utm_source: 'involveasia' },
    subIdParam: 'aff_sub2',
  },
  {
    networkId: 'amazon_associates',
    displayName: 'Amazon Associates',
    kind: 'in_house',
    markets: ['GLOBAL'],
    trackingParams: { tag: '{affiliateId}' },
    subIdParam: 'ascsubtag',
  },
  {
    networkId: 'flipkart_affiliate',
    displayName: 'Flipkart Affiliate',
    kind: 'in_house',
    markets: ['IN'],
    trackingParams: { affid: '{affiliateId}' },
    subIdParam: 'affExtParam1',
  },
  {
    networkId: 'noon_affiliates',
    displayName: 'noon Affiliates',
    kind: 'in_house',
    markets: ['AE', 'SA', 'EG'],
    trackingParams: { utm_source: 'affiliate', affiliate_id: '{affiliateId}' },
    subIdParam: 'subid',
  },
  {
    networkId: 'jumia_kol',
    displayName: 'Jumia KOL',
    kind: 'in_house',
    markets: ['NG', 'EG', 'KE', 'MA', 'CI', 'GH', 'UG', 'SN', 'TN', 'DZ'],
    trackingParams: { aff_id: '{affiliateId}', utm_source: 'kol' },
    subIdParam: 'sub_id',
  },
  {
    networkId: 'takealot_affiliates',
    displayName: 'Takealot Affiliates',
    kind: 'in_house',
    markets: ['ZA'],
    trackingParams: { affiliate: '{affiliateId}' },
    subIdParam: 'subid',
  },
];

const BY_ID = new Map(NETWORKS.map((network) => [network.networkId, network]));

function findNetwork(networkId: NetworkId): NetworkDefinition {
  const network = BY_ID.get(networkId);
  if (network === undefined) throw new Error(`Network ${networkId} missing from the registry`);
  return network;
}

/** The tracking parameters of a network for one affiliate id, ready to append. */
export function trackingParamsFor(networkId: NetworkId, affiliateId: string): [string, string][] {
  return Object.entries(findNetwork(networkId).trackingParams).map(([name, value]) => [
    name,
    value.replace('{affiliateId}', affiliateId),
  ]);
}

// Every id has exactly one definition; a missing one fails at load, not at the first click.
if (NETWORKS.length !== NETWORK_IDS.length || NETWORK_IDS.some((id) => !BY_ID.has(id))) {
  throw new Error('The network registry must define each of the 12 network ids once');
}

/** The sub-id parameter of a network (README "Conversions"). */
export function subIdParamOf(networkId: NetworkId): string {
  return findNetwork(networkId).subIdParam;
}
