import * as ipaddr from 'ipaddr.js';

/**
 * IPv6 forms that carry an IPv4 address in their last 32 bits and reach it: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (RFC 6145) and the well-known NAT64 prefix
 * (64:ff9b::/96, RFC 6052), where a NAT64 gateway forwards to the embedded IPv4 address.
 * The local-use NAT64 prefix 64:ff9b:1::/48 is refused outright.
 */
const EMBEDDED_IPV4_RANGES = new Set(['ipv4Mapped', 'rfc6145']);
const WELL_KNOWN_NAT64: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('64:ff9b::'), 96];

function hasEmbeddedIpv4(address: ipaddr.IPv6): boolean {
  return EMBEDDED_IPV4_RANGES.has(address.range()) || address.match(WELL_KNOWN_NAT64);
}

function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = address.toByteArray();
  return new ipaddr.IPv4(bytes.slice(-4));
}

/**
 * Whether a probe must refuse to connect to `address` (SSRF guard). Only ordinary public
 * unicast passes (ipaddr.js `range()` is `unicast`): private (10/8, 172.16/12, 192.168/16,
 * fc00::/7), loopback, link-local (169.254/16, fe80::/10), unspecified, broadcast,
 * multicast, carrier-grade NAT (100.64/10) and the reserved, documentation and benchmarking
 * blocks are refused, and so are 6to4 and Teredo, which tunnel to an address of their own.
 * An IPv6 form embedding an IPv4 address is judged by that IPv4 address. Text that is not an
 * IP address is refused.
 */
export function isForbiddenTarget(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const ipv6 = parsed as ipaddr.IPv6;
  if (hasEmbeddedIpv4(ipv6)) return embeddedIpv4(ipv6).range() !== 'unicast';
  return ipv6.range() !== 'unicast';
}
