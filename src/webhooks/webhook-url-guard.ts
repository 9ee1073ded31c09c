import { resolveAllowedAddress } from '../probes/pinned-connector';

const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Why an endpoint URL is refused, or null when it may be registered: absolute `https` (with
 * WEBHOOK_ALLOW_PRIVATE_TARGETS, tests only, `http` too), no credentials, and a host that
 * resolves only to public addresses (the probes' SSRF guard and DNS resolution). Deliveries
 * check the address again when they connect, so a name re-pointed later is refused then.
 */
export async function findWebhookUrlProblem(
  raw: string,
  allowPrivateTargets: boolean,
): Promise<string | null> {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH || !URL.canParse(raw)) {
    return 'url must be an absolute https URL of at most 2048 characters';
  }
  const url = new URL(raw);
  const protocols = allowPrivateTargets ? ['https:', 'http:'] : ['https:'];
  if (!protocols.includes(url.protocol)) return 'url must use https';
  if (url.username !== '' || url.password !== '') return 'url must not carry credentials';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  try {
    await resolveAllowedAddress(hostname, allowPrivateTargets);
    return null;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'ERR_PROBE_FORBIDDEN_TARGET'
      ? 'url must not resolve to a private, loopback or link-local address'
      : 'url host does not resolve';
  }
}
