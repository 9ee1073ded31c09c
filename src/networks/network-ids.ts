/** The 12 network ids in [S] order (docs/design.md section 1): 7 networks, then 5 in-house. */
export const NETWORK_IDS = [
  'awin',
  'cj',
  'impact',
  'partnerize',
  'cuelinks',
  'rakuten_affiliate',
  'involve_asia',
  'amazon_associates',
  'flipkart_affiliate',
  'noon_affiliates',
  'jumia_kol',
  'takealot_affiliates',
] as const;

export type NetworkId = (typeof NETWORK_IDS)[number];

export const isNetworkId = (value: string): value is NetworkId =>
  (NETWORK_IDS as readonly string[]).includes(value);
