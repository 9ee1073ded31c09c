import * as ipaddr from 'ipaddr.js';

/**
 * The key of every client whose address cannot be read (see clientAddressKey). Never the key
 * of an address: an IPv4 key is a dotted quad, an IPv6 key ends in `/64`.
 */
export const UNREADABLE_ADDRESS_KEY = 'unreadable';

/** A dotted quad as proxies and sockets write it: decimal, no leading zero, each up to 255. */
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
const IPV4_ADDRESS = new RegExp(`^${IPV4}$`);
/** `203.0.113.7:51234`: some proxies forward the client's port with its address. */
const IPV4_WITH_PORT = new RegExp(`^(${IPV4}):\\d{1,5}$`);
/** `[2001:db8::1]:51234`, or bracketed without a port. */
const BRACKETED_IPV6 = /^\[([^\]]+)\](?::\d{1,5})?$/;

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

function ipv6PartsOf(text: string): number[] | null {
  try {
    return ipaddr.IPv6.parse(text).parts;
  } catch {
    return null;
  }
}

function ipv6KeyOf(parts: number[]): string {
  if (isIpv4Mapped(parts)) return ipv4In(parts);
  // One spelling per /64 whatever the visitor's (case, zero padding, compression, zone).
  // Not RFC 5952's, which costs as much again as the parse: `2001:db8:0:0::/64`.
  return `${hex(parts[0])}:${hex(parts[1])}:${hex(parts[2])}:${hex(parts[3])}::/64`;
}

/**
 * The part of a client's address that per-address limits count (the edge's per-IP window,
 * the failed-authentication brake). An IPv4 client is its full address. An IPv6 client is its
 * /64: a subscriber gets at least a /64 and picks the other 64 bits at will (privacy addresses
 * rotate them), so keying the full address would let one client take a fresh window per
 * request. IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is the IPv4 client it maps, and so is
 * `::1.2.3.4`, which ipaddr.js reads as mapped. A port beside the address is dropped.
 *
 * proxy-addr passes what a trusted proxy forwards through unchecked, so `request.ip` may be
 * any text (`X-Forwarded-For: evil-1`). Every such value is one client, UNREADABLE_ADDRESS_KEY:
 * keyed as it stands, each new spelling would get a fresh budget. This runs on every click
 * and must never throw.
 */
export function clientAddressKey(clientIp: string): string {
  // IPv4, nearly every click, needs no parse: no colon, no IPv6.
  if (!clientIp.includes(':')) {
    return IPV4_ADDRESS.test(clientIp) ? clientIp : UNREADABLE_ADDRESS_KEY;
  }
  const parts = ipv6PartsOf(clientIp);
  if (parts !== null) return ipv6KeyOf(parts);
  const ipv4WithPort = IPV4_WITH_PORT.exec(clientIp);
  if (ipv4WithPort !== null) return ipv4WithPort[1];
  const bracketed = BRACKETED_IPV6.exec(clientIp);
  const bracketedParts = bracketed === null ? null : ipv6PartsOf(bracketed[1]);
  return bracketedParts === null ? UNREADABLE_ADDRESS_KEY : ipv6KeyOf(bracketedParts);
}
