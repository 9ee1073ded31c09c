import type { NetworkId } from '../networks/network-ids';
import { subIdParamOf } from '../networks/network-registry';

/**
 * The routed URL up to the value of the network's sub-id parameter (`…&ascsubtag=`), made
 * once per route object, so a click with attribution on costs one string append: this
 * prefix plus its record id (a ULID: 26 characters that need no escaping). Null where no
 * network is involved, or where appending would not reach the query (a fragment).
 */
export function subIdUrlPrefixOf(url: string, networkId: NetworkId | null): string | null {
  if (networkId === null || url.includes('#')) return null;
  const separator = !url.includes('?') ? '?' : url.endsWith('?') || url.endsWith('&') ? '' : '&';
  return `${url}${separator}${encodeURIComponent(subIdParamOf(networkId))}=`;
}
