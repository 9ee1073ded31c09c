import { DeepLinkProbeResult, DeepLinkVerdict, PROBE_BUDGET_MS } from './probe-results';

/**
 * The deep-link rule (SPEC, States and transitions): a HEAD answered 2xx or 3xx within 3 s
 * validates the link; any other answer, a timeout, a network error or a refused target makes
 * it invalid. A redirect counts as an answer here: following it is the health probe's job.
 */
export function classifyDeepLinkProbe(result: DeepLinkProbeResult): DeepLinkVerdict {
  if (result.kind === 'failed') return 'invalid';
  const isAnsweredInTime = result.elapsedMs <= PROBE_BUDGET_MS;
  return isAnsweredInTime && result.statusCode >= 200 && result.statusCode <= 399
    ? 'validated'
    : 'invalid';
}
