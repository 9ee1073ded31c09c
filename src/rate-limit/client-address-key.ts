import * as ipaddr from 'ipaddr.js';

/** ::ffff:0:0/96, what a dual-stack socket reports for an IPv4 peer. */
function isIpv4Mapped(parts: number[]): boolean {
  return (
    parts[0] === 0 &&
    parts[1] === 0 &&
    parts[2] === 0 &&
    parts[3] === 0 &&
    parts[4] === 0 &&
    parts[5] === 0xffff
  );
}

/** The dotted quad in the last 32 bits. */
const ipv4In = (parts: number[]): string =>
  `${parts[6] >> 8}.${parts[6] & 0xff}.${parts[7] >> 8}.${parts[7] & 0xff}`;

const hex = (part: number): string => part.toString(16);

/**
 * The part of a visitor's address that the per-IP edge window counts. An IPv4 visitor is its
 * full address. An IPv6 visitor is its /64: a subscriber gets at least a /64 and picks the
 * other 64 bits at will (privacy addresses rotate them), so keying the full address would
 * let one visitor take a fresh window per click. IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is the
 * IPv4 visitor it maps, and so is `::1.2.3.4`, which ipaddr.js reads as mapped. Text that is
 * not an address (proxy-addr passes a forwarded value through unchecked) is kept as it is:
 * this runs on every click and must never throw.
 */
export function clientAddressKey(clientIp: string): string {
  // IPv4, nearly every click, is kept as it stands without parsing: no colon, no IPv6.
  if (!clientIp.includes(':')) return clientIp;
  let parts: number[];
  try {
    parts = ipaddr.IPv6.parse(clientIp).parts;
  } catch {
    return clientIp;
  }
  if (isIpv4Mapped(parts)) return ipv4In(parts);
  // One spelling per /64 whatever the visitor's (case, zero padding, compression, zone).
  // Not RFC 5952's, which costs as much again as the parse: `2001:db8:0:0::/64`.
  return `${hex(parts[0])}:${hex(parts[1])}:${hex(parts[2])}:${hex(parts[3])}::/64`;
}
