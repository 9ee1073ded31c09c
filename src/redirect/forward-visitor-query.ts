import { NETWORKS } from '../networks/network-registry';

/**
 * Query parameters a visitor can never set on a destination: every network's tracking
 * parameters (so `?tag=` or `?awc=` cannot replace the creator's attribution, on any
 * storefront, whichever network routed the click). Compared without case.
 */
export const PROTECTED_QUERY_PARAMS: ReadonlySet<string> = new Set(
  NETWORKS.flatMap((network) =>
    Object.keys(network.trackingParams).map((name) => name.toLowerCase()),
  ),
);

/**
 * Query forwarding (a link's `forwardQuery`): the visitor's query parameters from
 * `/r/:id?…` appended to the destination, in their order, except the protected ones and
 * those the destination already sets, which never change. The destination's own query keeps
 * its bytes; the result is a WHATWG serialisation, so it is a legal Location whatever the
 * visitor sent.
 */
export function forwardVisitorQuery(destination: string, visitorQuery: string): string {
  if (visitorQuery === '') return destination;
  const url = new URL(destination);
  const alreadySet = new Set([...url.searchParams.keys()].map((name) => name.toLowerCase()));
  const forwarded = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(visitorQuery)) {
    const key = name.toLowerCase();
    if (name === '' || alreadySet.has(key) || PROTECTED_QUERY_PARAMS.has(key)) continue;
    forwarded.append(name, value);
  }
  const extra = forwarded.toString();
  if (extra === '') return destination;
  url.search = url.search === '' || url.search === '?' ? extra : `${url.search.slice(1)}&${extra}`;
  return url.href;
}
