import { isIP } from 'node:net';

/** DNS limits (RFC 1035): a name of at most 253 characters, labels of at most 63. */
const MAX_HOSTNAME_LENGTH = 253;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export type HostnameCheck = { hostname: string } | { problem: string };

/**
 * A branded domain's hostname as entered, in the spelling a browser sends in `Host`: lowercase,
 * an internationalised name in its punycode form (`bücher.example` -> `xn--bcher-kva.example`,
 * the WHATWG URL parser's conversion), without a trailing dot. Refused: anything that is not
 * a bare hostname (a scheme, port, path or credentials), an IP address in any spelling, a name
 * without a dot, and the service's own hosts (`refusedHosts`, lowercase).
 */
export function checkHostname(input: string, refusedHosts: readonly string[]): HostnameCheck {
  const trimmed = input.trim();
  if (trimmed === '' || /[\s/\\?#@:%]/u.test(trimmed)) {
    return { problem: 'must be a bare hostname such as links.example.com' };
  }
  let hostname: string;
  try {
    hostname = new URL(`https://${trimmed}/`).hostname;
  } catch {
    return { problem: 'must be a valid hostname' };
  }
  if (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  if (hostname.startsWith('[') || isIP(hostname) !== 0) {
    return { problem: 'must be a domain name, not an IP address' };
  }
  const labels = hostname.split('.');
  if (hostname.length > MAX_HOSTNAME_LENGTH || labels.length < 2) {
    return { problem: 'must be a domain name with a dot, of at most 253 characters' };
  }
  if (!labels.every((label) => LABEL.test(label)) || /^[0-9]+$/.test(labels[labels.length - 1])) {
    return { problem: 'must be a valid domain name (letters, digits and hyphens in each label)' };
  }
  if (refusedHosts.includes(hostname)) {
    return { problem: "is the service's own host" };
  }
  return { hostname };
}
