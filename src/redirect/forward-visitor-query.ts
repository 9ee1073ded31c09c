import { QR_MARKER_NAME } from '../analytics/click-source';
import { NETWORKS } from '../networks/network-registry';

/**
 * Query parameters a visitor can never set on a destination: every network's tracking
 * parameters and sub-id parameter (so `?tag=` or `?ascsubtag=` cannot replace the creator's
 * attribution or a click's id, on any storefront, whichever network routed the click).
 * Compared without case.
 */
export const PROTECTED_QUERY_PARAMS: ReadonlySet<string> = new Set(
  NETWORKS.flatMap((network) =>
    [...Object.keys(network.trackingParams), network.subIdParam].map((name) => name.toLowerCase()),
  ),
);

/**
 * Only plain names are forwarded. Merchants' servers read names loosely: PHP turns `aff.id`
 * and ` tag` into `aff_id` and `_tag`, PHP and `qs` read `tag[]` as `tag`, and some stop at a
 * NUL. Any such name could reach a protected parameter under another spelling, so a name
 * with anything beyond letters, digits, `_` and `-` (after percent-decoding) is dropped.
 */
const PLAIN_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * A name as a loose parser would see it, for the comparison with the protected names: without
 * case, brackets, dots, whitespace and control characters. Plain names only change case here;
 * the rest keeps the comparison right should the plain-name rule ever widen.
 */
const looseFormOf = (name: string): string =>
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  name.replace(/[[\].\s\u0000-\u001f\u007f]/g, '').toLowerCase();

/** Whether a visitor's parameter name may be forwarded at all (plain and not protected). */
function isForwardableName(name: string): boolean {
  return PLAIN_NAME.test(name) && !PROTECTED_QUERY_PARAMS.has(looseFormOf(name));
}

/**
 * Query forwarding (a link's `forwardQuery`): the visitor's query parameters from
 * `/r/:id?…` appended to the destination, in their order, except names that are not plain,
 * the protected ones, those the destination already sets, which never change, and the QR
 * code's marker `qr=1` (ours, not the merchant's). The destination's own query keeps its
 * bytes; the result is a WHATWG serialisation, so it is a legal Location whatever the
 * visitor sent.
 */
export function forwardVisitorQuery(destination: string, visitorQuery: string): string {
  if (visitorQuery === '') return destination;
  const url = new URL(destination);
  const alreadySet = new Set([...url.searchParams.keys()].map((name) => name.toLowerCase()));
  const forwarded = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(visitorQuery)) {
    if (!isForwardableName(name) || alreadySet.has(name.toLowerCase())) continue;
    if (name === QR_MARKER_NAME && value === '1') continue;
    forwarded.append(name, value);
  }
  const extra = forwarded.toString();
  if (extra === '') return destination;
  url.search = url.search === '' || url.search === '?' ? extra : `${url.search.slice(1)}&${extra}`;
  return url.href;
}
