import type { MerchantProfile } from './merchant-profile';

export interface MerchantHostMatch {
  merchantId: string;
  /** Region key owning the hostname; null only for a domain no region lists. */
  region: string | null;
}

export interface MerchantHostIndex {
  /** Case-insensitive; ignores a trailing dot and a `:port`. Exact hostnames only, no wildcard. */
  resolve(hostname: string): MerchantHostMatch | null;
}

/** Lowercase, without `:port` and trailing dots, as hostnames are stored in profiles. */
export function normalizeHostname(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith('[')) {
    // IPv6 literal: never a merchant host, but keep its colons intact.
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  host = host.replace(/:\d*$/, '');
  return host.replace(/\.+$/, '');
}

/** Region key of `profile` whose hostnames list `hostname` (already normalised), or null. */
export function findRegionByHostname(profile: MerchantProfile, hostname: string): string | null {
  for (const [regionKey, region] of Object.entries(profile.regions)) {
    if (region.hostnames.includes(hostname)) {
      return regionKey;
    }
  }
  return null;
}

/**
 * Hostname -> merchant lookup over the whole knowledge base. When two profiles claim one
 * hostname the first wins; the knowledge-base check reports such conflicts.
 */
export function buildMerchantHostIndex(profiles: readonly MerchantProfile[]): MerchantHostIndex {
  const byHostname = new Map<string, MerchantHostMatch>();
  for (const profile of profiles) {
    for (const [regionKey, region] of Object.entries(profile.regions)) {
      for (const hostname of region.hostnames) {
        const key = normalizeHostname(hostname);
        if (!byHostname.has(key)) {
          byHostname.set(key, { merchantId: profile.merchantId, region: regionKey });
        }
      }
    }
    for (const domain of profile.domains) {
      const key = normalizeHostname(domain);
      if (!byHostname.has(key)) {
        byHostname.set(key, { merchantId: profile.merchantId, region: null });
      }
    }
  }
  return {
    resolve(hostname: string): MerchantHostMatch | null {
      const match = byHostname.get(normalizeHostname(hostname));
      return match === undefined ? null : { ...match };
    },
  };
}
