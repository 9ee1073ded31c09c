import type {
  MerchantProfile,
  NetworkId,
  ProductCategory,
} from '../../merchants/kb/merchant-profile';
import type { RouteLearning } from './learned-epc';
import type {
  LinkProbes,
  LinkRoutingInput,
  NetworkOverridePin,
  RoutingPresetId,
  UtmOverride,
} from './routing-types';

/** A creator's active affiliate id per network: what the engine routes with. */
export type AffiliateIds = Partial<Record<NetworkId, string>>;

/**
 * A link as every caller of the engine holds it before the merchant and the creator's
 * accounts are looked up: a stored link's routing record (clicks), a create request, or a
 * POST /route question. Absent settings are null, never undefined.
 */
export interface RoutableLink {
  originalUrl: string;
  preset: RoutingPresetId;
  category: ProductCategory | null;
  passthrough: boolean;
  networkOverride: NetworkOverridePin | null;
  utmOverride: UtmOverride | null;
  probes: LinkProbes;
}

/**
 * The engine's link input, built the same way for POST /route, link creation and clicks, so
 * the three cannot route one link differently. `learning` only for a `learned` creator.
 */
export function toLinkRoutingInput(
  link: RoutableLink,
  merchant: MerchantProfile | null,
  affiliateIds: AffiliateIds,
  learning?: RouteLearning,
): LinkRoutingInput {
  const input: LinkRoutingInput = {
    originalUrl: link.originalUrl,
    merchant,
    preset: link.preset,
    passthrough: link.passthrough,
    probes: link.probes,
    networkAccounts: affiliateIds,
  };
  // Unset settings stay absent rather than undefined, as the engine's optional fields are.
  if (link.category !== null) input.category = link.category;
  if (link.networkOverride !== null) input.networkOverride = link.networkOverride;
  if (link.utmOverride !== null) input.utmOverride = link.utmOverride;
  if (learning !== undefined) input.learning = learning;
  return input;
}

/**
 * The affiliate ids of a creator's active accounts, from (network, affiliate id) pairs as the
 * networks module reads them. The one place both the edge and the API build them.
 */
export function toAffiliateIds(accounts: Iterable<readonly [NetworkId, string]>): AffiliateIds {
  return Object.fromEntries(accounts);
}
