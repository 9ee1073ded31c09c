import * as ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`, what a dual-stack socket reports) compares as IPv4. */
function normalise(address: Address): Address {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

/**
 * Parses an address in its standard spelling only: ipaddr.js also reads octal, short and
 * single-number IPv4 forms (`010.0.0.1` is 8.0.0.1), which an operator never means.
 */
function parseStrict(text: string): Address {
  if (text.includes(':')) return ipaddr.IPv6.parse(text);
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) throw new Error(`not an IPv4 address: ${text}`);
  return ipaddr.IPv4.parse(text);
}

/** Parses an allowlist entry (single IP or CIDR block); null when it is neither. */
export function parseAllowlistEntry(entry: string): [Address, number] | null {
  try {
    const [addressText, bitsText, ...rest] = entry.split('/');
    const parsed = parseStrict(addressText);
    const maxBits = parsed.kind() === 'ipv4' ? 32 : 128;
    if (rest.length > 0 || (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText))) return null;
    const bits = bitsText === undefined ? maxBits : Number(bitsText);
    if (bits > maxBits) return null;
    // An IPv4-mapped IPv6 block is the IPv4 block it maps (clients are compared as IPv4).
    const address = normalise(parsed);
    const mappedBits = address.kind() !== parsed.kind() ? Math.max(0, bits - 96) : bits;
    return [address, mappedBits];
  } catch {
    return null;
  }
}

/** Normalised form of a valid entry (for storage), or null when invalid. */
export function normaliseAllowlistEntry(entry: string): string | null {
  const parsed = parseAllowlistEntry(entry.trim());
  if (parsed === null) return null;
  const [address, bits] = parsed;
  const maxBits = address.kind() === 'ipv4' ? 32 : 128;
  return bits === maxBits ? address.toString() : `${address.toString()}/${bits}`;
}

/** An empty allowlist admits every address. */
export function isIpAllowed(clientIp: string, allowlist: readonly string[]): boolean {
  if (allowlist.length === 0) return true;
  let client: Address;
  try {
    client = normalise(parseStrict(clientIp));
  } catch {
    return false;
  }
  return allowlist.some((entry) => {
    const parsed = parseAllowlistEntry(entry);
    if (parsed === null) return false;
    const [range, bits] = parsed;
    return range.kind() === client.kind() && client.match([range, bits] as never);
  });
}
