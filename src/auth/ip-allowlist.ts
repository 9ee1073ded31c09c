import * as ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`, what a dual-stack socket reports) compares as IPv4. */
function normalise(address: Address): Address {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

/** Parses an allowlist entry (single IP or CIDR block); null when it is neither. */
export function parseAllowlistEntry(entry: string): [Address, number] | null {
  try {
    if (entry.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      return [address, bits];
    }
    const address = normalise(ipaddr.parse(entry));
    return [address, address.kind() === 'ipv4' ? 32 : 128];
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
  if (!ipaddr.isValid(clientIp)) return false;
  const client = normalise(ipaddr.parse(clientIp));
  return allowlist.some((entry) => {
    const parsed = parseAllowlistEntry(entry);
    if (parsed === null) return false;
    const [range, bits] = parsed;
    return range.kind() === client.kind() && client.match([range, bits] as never);
  });
}
