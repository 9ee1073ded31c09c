import * as ipaddr from 'ipaddr.js';

type Cidr = [ipaddr.IPv6, number];

const cidr = (text: string): Cidr => ipaddr.IPv6.parseCIDR(text);

/**
 * IPv6 forms whose traffic is delivered to the IPv4 address in their last 32 bits, so they
 * are exactly as safe as that address: IPv4-mapped (::ffff:0:0/96, what a dual-stack socket
 * connects over IPv4) and the well-known NAT64 prefix (64:ff9b::/96, RFC 6052), where a
 * NAT64 gateway forwards to the embedded address. Every other embedding is refused by the
 * allow-list below, whatever it embeds: IPv4-compatible ::/96 (deprecated, RFC 4291),
 * IPv4-translated ::ffff:0:0:0/96 (obsolete SIIT form, RFC 2765), local-use NAT64
 * 64:ff9b:1::/48 (RFC 8215, routed wherever the operator likes), 6to4 and Teredo.
 */
const FORWARDED_TO_EMBEDDED_IPV4: readonly Cidr[] = [cidr('::ffff:0:0/96'), cidr('64:ff9b::/96')];

/** Only global unicast (RFC 4291) can be a merchant's site; everything else is refused. */
const GLOBAL_UNICAST = cidr('2000::/3');

/**
 * Blocks inside 2000::/3 that are not ordinary public hosts (IANA IPv6 special-purpose
 * registry). Refused whole even where a sub-block is globally routed: no storefront lives in
 * them, and a tunnel endpoint or relay would carry the probe to an address never checked.
 */
const SPECIAL_GLOBAL_RANGES: readonly Cidr[] = [
  // IETF protocol assignments (RFC 2928): Teredo 2001::/32 (tunnels to an embedded IPv4),
  // benchmarking 2001:2::/48, AMT, AS112, ORCHID 2001:10::/28, ORCHIDv2 2001:20::/28, DRIP.
  cidr('2001::/23'),
  // Documentation (RFC 3849, RFC 9637).
  cidr('2001:db8::/32'),
  cidr('3fff::/20'),
  // 6to4 (RFC 3056): relayed to the IPv4 address in bits 16-47.
  cidr('2002::/16'),
  // AS112 DNS sinks (RFC 7534): refused by the ipaddr.js `range()` check this list replaced.
  cidr('2620:4f:8000::/48'),
];

const isIn = (address: ipaddr.IPv6, ranges: readonly Cidr[]): boolean =>
  ranges.some((range) => address.match(range));

function isForbiddenIpv4(address: ipaddr.IPv4): boolean {
  return address.range() !== 'unicast';
}

/**
 * An allow-list rather than a list of bad ranges: a block forgotten here is refused, not let
 * through. Outside 2000::/3 that covers unspecified ::, loopback ::1, IPv4-compatible ::/96,
 * discard 100::/64, unique local fc00::/7, link-local fe80::/10, site-local fec0::/10,
 * multicast ff00::/8 and the unassigned space.
 */
function isForbiddenIpv6(address: ipaddr.IPv6): boolean {
  if (isIn(address, FORWARDED_TO_EMBEDDED_IPV4)) {
    return isForbiddenIpv4(new ipaddr.IPv4(address.toByteArray().slice(-4)));
  }
  return !address.match(GLOBAL_UNICAST) || isIn(address, SPECIAL_GLOBAL_RANGES);
}

/**
 * ipaddr.js reads `::a.b.c.d` as IPv4-mapped ::ffff:a.b.c.d, but to the socket it is the
 * IPv4-compatible ::a.b.c.d (RFC 4291), and that is how Node spells a DNS answer in ::/96
 * (`::808:808` comes back as `::8.8.8.8`). The same address written `0::a.b.c.d` is read
 * right, so that spelling is the one judged.
 */
function spellingIpaddrReadsRight(text: string): string {
  return text.startsWith('::') && text.includes('.') ? `0${text}` : text;
}

/**
 * Whether a probe must refuse to connect to `address` (SSRF guard). IPv4 passes only as
 * ordinary public unicast (ipaddr.js `range()` is `unicast`): private (10/8, 172.16/12,
 * 192.168/16), loopback, link-local (169.254/16), unspecified, broadcast, multicast,
 * carrier-grade NAT (100.64/10) and the reserved, documentation and benchmarking blocks are
 * refused. IPv6 passes only as global unicast outside the special blocks, or as an
 * IPv4-mapped or well-known NAT64 address whose IPv4 address passes. Text that is not an IP
 * address is refused.
 */
export function isForbiddenTarget(address: string): boolean {
  const text = spellingIpaddrReadsRight(address);
  if (!ipaddr.isValid(text)) return true;
  const parsed = ipaddr.parse(text);
  return parsed.kind() === 'ipv4'
    ? isForbiddenIpv4(parsed as ipaddr.IPv4)
    : isForbiddenIpv6(parsed as ipaddr.IPv6);
}
