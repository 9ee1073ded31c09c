/**
 * What a probe observed, as plain data: the prober records facts, the classifiers in this
 * folder turn them into the link's deepLinkStatus and healthStatus.
 */

/** Each probe of a link (the deep-link HEAD, the health walk) gets 3 s in total (SPEC bounds). */
export const PROBE_BUDGET_MS = 3000;

/** Requests a health walk may send before it stops counting (depth > 3 is critical anyway). */
export const MAX_HEALTH_HOPS = 6;

/** Why a request got no HTTP answer. */
export type ProbeFailure =
  /** The budget ran out before the answer's headers arrived. */
  | 'timeout'
  /** DNS, TCP or TLS failed, or the connection dropped. */
  | 'network_error'
  /** The host resolves to an address probes may not reach (SSRF guard). */
  | 'forbidden_target'
  /** Not an absolute http(s) URL, or a redirect to one that is not. */
  | 'unsupported_url';

export type DeepLinkProbeResult =
  | { kind: 'answered'; statusCode: number; elapsedMs: number }
  | { kind: 'failed'; failure: ProbeFailure };

/** One answered request of a health walk. */
export interface ProbeHop {
  url: string;
  statusCode: number;
  /** The absolute URL the answer redirects to; null when it is not a redirect. */
  redirectsTo: string | null;
}

/**
 * A health walk: redirects followed by hand, one hop per answered request.
 * `stop` says why the walk ended: the last hop was not a redirect (`final_answer`), it
 * pointed back at a URL already visited (`redirect_loop`), the walk reached MAX_HEALTH_HOPS
 * (`hop_limit`), or a request got no answer (a ProbeFailure).
 */
export interface HealthProbeResult {
  hops: readonly ProbeHop[];
  stop: 'final_answer' | 'redirect_loop' | 'hop_limit' | ProbeFailure;
}

export type DeepLinkVerdict = 'validated' | 'invalid';
export type HealthVerdict = 'ok' | 'warning' | 'critical';
