import { isDeepStrictEqual } from 'node:util';
import type { MerchantProfile } from './merchant-profile';

/** A profile as stored, with whether an operator has changed it since it was seeded. */
export interface StoredProfile {
  profile: MerchantProfile;
  editedByOperator: boolean;
}

/** One EPC hint that differs; `null` where the region or network has no hint on that side. */
interface EpcHintDifference {
  region: string;
  networkId: string;
  /** The region's currency (the bundled one when both sides have the region). */
  currency: string;
  before: number | null;
  after: number | null;
}

/** One merchant whose bundled profile is not what is stored. */
export interface MerchantDifference {
  merchantId: string;
  change: 'added' | 'changed';
  /** The stored row carries an operator's change, which applying the bundle replaces. */
  editedByOperator: boolean;
  version: { before: string | null; after: string };
  epcHints: EpcHintDifference[];
}

/**
 * What applying the bundled knowledge base would change, merchant by merchant (in bundle
 * order): new merchants, and stored profiles that differ in anything. The EPC hints are
 * listed one by one since they are what creators are told about (`commission_rate.changed`).
 * Merchants stored but no longer bundled are left out: applying never deletes a merchant.
 */
export function diffKnowledgeBase(
  stored: ReadonlyMap<string, StoredProfile>,
  bundled: readonly MerchantProfile[],
): MerchantDifference[] {
  const differences: MerchantDifference[] = [];
  for (const profile of bundled) {
    const current = stored.get(profile.merchantId);
    if (current !== undefined && isDeepStrictEqual(current.profile, profile)) continue;
    differences.push({
      merchantId: profile.merchantId,
      change: current === undefined ? 'added' : 'changed',
      editedByOperator: current?.editedByOperator ?? false,
      version: { before: current?.profile.meta.version ?? null, after: profile.meta.version },
      epcHints: current === undefined ? [] : diffEpcHints(current.profile, profile),
    });
  }
  return differences;
}

function diffEpcHints(before: MerchantProfile, after: MerchantProfile): EpcHintDifference[] {
  const differences: EpcHintDifference[] = [];
  const regions = new Set([...Object.keys(before.regions), ...Object.keys(after.regions)]);
  for (const region of [...regions].sort()) {
    const hintsBefore = hintsOf(before, region);
    const hintsAfter = hintsOf(after, region);
    const networks = new Set([...Object.keys(hintsBefore), ...Object.keys(hintsAfter)]);
    for (const networkId of [...networks].sort()) {
      const was = hintsBefore[networkId] ?? null;
      const is = hintsAfter[networkId] ?? null;
      if (was === is) continue;
      const currency = (after.regions[region] ?? before.regions[region]).baseCurrency;
      differences.push({ region, networkId, currency, before: was, after: is });
    }
  }
  return differences;
}

function hintsOf(profile: MerchantProfile, region: string): Record<string, number | undefined> {
  return profile.regions[region]?.epcHints ?? {};
}
