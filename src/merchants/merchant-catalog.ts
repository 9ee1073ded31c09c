import { routableNetworks } from './kb/routable-networks';
import { MerchantProfile, NetworkId } from './kb/merchant-profile';
import { buildMerchantHostIndex, MerchantHostMatch } from './kb/merchant-host-index';

export interface MerchantFilter {
  networkId?: NetworkId;
  category?: string;
  region?: string;
  availableInCountry?: string;
}

/**
 * The knowledge base in memory, immutable once built: profiles by id, ordered by id, and the
 * hostname index used by links, routing and analytics. Pure (no I/O).
 */
export class MerchantCatalog {
  private readonly byId: Map<string, MerchantProfile>;
  private readonly hosts: ReturnType<typeof buildMerchantHostIndex>;
  readonly profiles: readonly MerchantProfile[];

  constructor(profiles: readonly MerchantProfile[]) {
    this.profiles = [...profiles].sort((a, b) => (a.merchantId < b.merchantId ? -1 : 1));
    this.byId = new Map(this.profiles.map((profile) => [profile.merchantId, profile]));
    this.hosts = buildMerchantHostIndex(this.profiles);
  }

  /** Ids are case-sensitive, as the spec says. */
  find(merchantId: string): MerchantProfile | undefined {
    return this.byId.get(merchantId);
  }

  resolveHost(hostname: string): (MerchantHostMatch & { profile: MerchantProfile }) | null {
    const match = this.hosts.resolve(hostname);
    const profile = match === null ? undefined : this.byId.get(match.merchantId);
    return match === null || profile === undefined ? null : { ...match, profile };
  }

  filter(filter: MerchantFilter): MerchantProfile[] {
    return this.profiles.filter((profile) => matchesFilter(profile, filter));
  }
}

function matchesFilter(profile: MerchantProfile, filter: MerchantFilter): boolean {
  const regions = Object.entries(profile.regions);
  if (filter.networkId !== undefined && !routableNetworks(profile).includes(filter.networkId)) {
    return false;
  }
  if (
    filter.category !== undefined &&
    !(profile.categories as readonly string[]).includes(filter.category)
  ) {
    return false;
  }
  if (filter.region !== undefined && !regions.some(([key]) => key === filter.region)) {
    return false;
  }
  if (filter.availableInCountry !== undefined) {
    const country = filter.availableInCountry;
    if (profile.bannedMarkets.includes(country)) return false;
    return regions.some(([key, region]) => {
      const shipsTo = region.availabilityFlags.shipsToCountries;
      return key === country || shipsTo === null || shipsTo.includes(country);
    });
  }
  return true;
}
