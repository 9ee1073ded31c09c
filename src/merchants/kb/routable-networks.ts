import { IN_HOUSE_NETWORK_BY_MERCHANT, MerchantProfile, NetworkId } from './merchant-profile';

/**
 * Networks a merchant may be routed through (SPEC item 7): a direct merchant only its in-house
 * programme, a network merchant only its `supportedNetworks`. A fact of the knowledge base,
 * read by the routing engine and by the merchant catalogue's network filter.
 */
export function routableNetworks(merchant: MerchantProfile): NetworkId[] {
  if (merchant.programType === 'direct') {
    const inHouse = IN_HOUSE_NETWORK_BY_MERCHANT[merchant.merchantId];
    return inHouse === undefined ? [] : [inHouse];
  }
  return [...merchant.supportedNetworks];
}
