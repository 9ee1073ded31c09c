import { NETWORKS } from '../../networks/network-registry';
import { HealthProbeResult, HealthVerdict } from './probe-results';

/** Deeper than this is critical; 2 to this is a warning (SPEC, States and transitions). */
const MAX_WARNING_DEPTH = 3;
const MAX_OK_DEPTH = 1;
/** Gone for good: the spec's "high 404 probability". */
const GONE_STATUSES = new Set([404, 410]);

/** The networks' own click parameters (awc, tag, clickref, ...), besides every utm_*. */
const NETWORK_TRACKING_PARAMETERS = new Set(
  NETWORKS.flatMap((network) => Object.keys(network.trackingParams)),
);

function isTrackingParameter(name: string): boolean {
  return name.toLowerCase().startsWith('utm_') || NETWORK_TRACKING_PARAMETERS.has(name);
}

/**
 * Tracking parameters of `fromUrl` that `toUrl` no longer carries with the same value: a
 * redirect that drops them loses the creator's attribution.
 */
export function listDroppedTrackingParameters(fromUrl: string, toUrl: string): string[] {
  if (!URL.canParse(fromUrl) || !URL.canParse(toUrl)) return [];
  const kept = new URL(toUrl).searchParams;
  const dropped = [...new URL(fromUrl).searchParams]
    .filter(([name, value]) => isTrackingParameter(name) && !kept.getAll(name).includes(value))
    .map(([name]) => name);
  return [...new Set(dropped)];
}

/**
 * The link-health rule (SPEC, States and transitions), on a walk whose redirects were
 * followed by hand:
 * - critical: more than 3 redirects, a redirect loop, a 404 or 410 at the end, or no
 *   answer at all (timeout, network error, refused target): a visitor would not arrive;
 * - warning: 2 or 3 redirects, a redirect that drops a tracking parameter, or an end
 *   answer that is neither 2xx nor gone (403 bot walls, 429, 5xx: possibly transient);
 * - ok: at most 1 redirect to a 2xx that keeps the tracking parameters.
 */
export function classifyHealthProbe(result: HealthProbeResult): HealthVerdict {
  const depth = result.hops.filter((hop) => hop.redirectsTo !== null).length;
  const first = result.hops.at(0);
  const last = result.hops.at(-1);
  if (result.stop !== 'final_answer' || first === undefined || last === undefined) {
    return 'critical';
  }
  if (depth > MAX_WARNING_DEPTH || GONE_STATUSES.has(last.statusCode)) return 'critical';
  const isSuccess = last.statusCode >= 200 && last.statusCode <= 299;
  const isTrackingKept = listDroppedTrackingParameters(first.url, last.url).length === 0;
  if (depth > MAX_OK_DEPTH || !isSuccess || !isTrackingKept) return 'warning';
  return 'ok';
}
