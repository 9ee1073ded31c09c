import type { FxSnapshot } from '../../fx/math/fx-snapshot';
import type {
  MerchantProfile,
  MerchantRegion,
  NetworkId,
} from '../../merchants/kb/merchant-profile';
import { routableNetworks } from '../../merchants/kb/routable-networks';
import {
  explainNoAccount,
  explainNoFxRate,
  explainNoInHouseProgramme,
  explainZeroHint,
} from './explain';
import type { RegionTier, TraceExclusion } from './routing-types';

/** A (region, network) pair that may be scored. */
export interface Candidate {
  regionKey: string;
  region: MerchantRegion;
  tier: RegionTier;
  networkId: NetworkId;
  /** The creator's affiliate id on that network. */
  affiliateId: string;
  /** EPC per click in `region.baseCurrency`, > 0. */
  epcHint: number;
  /** Units of `region.baseCurrency` per 1 USD, > 0. */
  fxRate: number;
}

export interface CandidateList {
  candidates: Candidate[];
  excluded: TraceExclusion[];
  /** Passthrough reason when `candidates` is empty. */
  failure: 'no_candidates' | 'no_active_network_account' | null;
}

/**
 * True when `networkId` may route `merchant` in `region`: the merchant routes through it and
 * its EPC hint there is > 0 (SPEC item 4). Link create/update refuses a pin that is not
 * (NETWORK_OVERRIDE_UNAVAILABLE).
 */
export function isNetworkAvailable(
  merchant: MerchantProfile,
  region: string,
  networkId: NetworkId,
): boolean {
  if (!Object.hasOwn(merchant.regions, region)) {
    return false;
  }
  return (
    routableNetworks(merchant).includes(networkId) &&
    isPositive(merchant.regions[region].epcHints[networkId])
  );
}

/**
 * The scorable pairs of the chosen regions: a positive EPC hint (0 means unavailable), an
 * active network account and an FX rate for the region's currency. Everything else goes to
 * `excluded` with its reason.
 */
export function listCandidates(
  merchant: MerchantProfile,
  regionKeys: readonly string[],
  tier: RegionTier,
  networkAccounts: Partial<Record<NetworkId, string>>,
  fx: FxSnapshot,
): CandidateList {
  const networks = routableNetworks(merchant);
  const candidates: Candidate[] = [];
  const excluded: TraceExclusion[] = [];
  let positiveHints = 0;
  let missingAccounts = 0;

  for (const regionKey of regionKeys) {
    const region = merchant.regions[regionKey];
    if (networks.length === 0) {
      excluded.push({
        region: regionKey,
        networkId: null,
        reason: explainNoInHouseProgramme(merchant.merchantId),
      });
    }
    for (const networkId of networks) {
      const epcHint = region.epcHints[networkId];
      if (!isPositive(epcHint)) {
        excluded.push({
          region: regionKey,
          networkId,
          reason: explainZeroHint(regionKey, epcHint),
        });
        continue;
      }
      positiveHints += 1;
      const affiliateId = networkAccounts[networkId];
      if (affiliateId === undefined || affiliateId === '') {
        missingAccounts += 1;
        excluded.push({ region: regionKey, networkId, reason: explainNoAccount(networkId) });
        continue;
      }
      const fxRate = fx.rates[region.baseCurrency];
      if (!isPositive(fxRate)) {
        excluded.push({
          region: regionKey,
          networkId,
          reason: explainNoFxRate(region.baseCurrency),
        });
        continue;
      }
      candidates.push({ regionKey, region, tier, networkId, affiliateId, epcHint, fxRate });
    }
  }

  let failure: CandidateList['failure'] = null;
  if (candidates.length === 0) {
    // Accounts are "the only obstacle" when every pair with a positive hint lacked one.
    failure =
      positiveHints > 0 && missingAccounts === positiveHints
        ? 'no_active_network_account'
        : 'no_candidates';
  }
  return { candidates, excluded, failure };
}

function isPositive(value: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
