// Plain-words reasons for the crcTrace: why a storefront or network was dropped before scoring,
// and why a scored candidate lost. Kept apart from the arithmetic so wording changes stay local.
import { GLOBAL_REGION, type NetworkId } from '../../merchants/kb/merchant-profile';
import type { RankStage, RegionTier } from './routing-types';

/** A USD amount for prose: 4 decimals, or 2 significant digits below 0.0001. */
function formatUsd(amount: number): string {
  const magnitude = Math.abs(amount);
  return magnitude >= 0.0001 || magnitude === 0 ? amount.toFixed(4) : amount.toPrecision(2);
}

/** A signed bias for prose: `+0.05`, `-0.03`, `+0.00`. */
export function formatBias(bias: number): string {
  const text = Number.isInteger(bias * 100) ? bias.toFixed(2) : String(bias);
  return bias < 0 ? text : `+${text}`;
}

export function explainRegionNotServing(regionKey: string, market: string): string {
  return `region ${regionKey} does not serve ${market}`;
}

/** A region that serves the market, but in a later tier than the one chosen. */
export function explainLowerTier(regionKey: string, tier: RegionTier, market: string): string {
  if (regionKey === GLOBAL_REGION) {
    return `the GLOBAL storefront is used only when no regional storefront serves ${market}`;
  }
  return tier === 2
    ? `region ${regionKey} ships to ${market}, but ${market} has its own storefront`
    : `region ${regionKey} is not the first choice for ${market}`;
}

export const NO_CROSS_STOREFRONT_DEEP_LINKS =
  'merchant does not support deep links across storefronts';

export function explainPassthroughStorefront(regionKey: string, storefront: string): string {
  return `storefront ${storefront} (${regionKey}) requires passthrough`;
}

export function explainNoInHouseProgramme(merchantId: string): string {
  return `no in-house programme id is known for direct merchant ${merchantId}`;
}

export function explainZeroHint(regionKey: string, hint: number | undefined): string {
  return hint === undefined ? `no EPC hint in ${regionKey}` : `EPC hint is 0 in ${regionKey}`;
}

export function explainNoAccount(networkId: NetworkId): string {
  return `no active network account for ${networkId}`;
}

export function explainNoFxRate(currency: string): string {
  return `no FX rate for ${currency}`;
}

/** What the loser of a comparison lost on, once the scores are known. */
export interface LostComparison {
  stage: RankStage;
  /** Winner's finalScore minus this candidate's; negative when a pin overrode a better score. */
  scoreGap: number;
  /** The network the link pins, when the pin decided the winner. */
  pinnedNetworkId: NetworkId | null;
  /** Learned routing: the visitor explores the winner today instead of the best route. */
  isExploration?: boolean;
}

/** whyNotChosen of one alternative, e.g. "scored 0.0041 USD below the winner". */
export function explainWhyNotChosen({
  stage,
  scoreGap,
  pinnedNetworkId,
  isExploration = false,
}: LostComparison): string {
  if (isExploration && scoreGap < 0) {
    return `this visitor explores another route today; this route scored ${formatUsd(-scoreGap)} USD above it`;
  }
  if (pinnedNetworkId !== null) {
    const comparison =
      scoreGap < 0
        ? `scored ${formatUsd(-scoreGap)} USD above it`
        : scoreGap > 0
          ? `scored ${formatUsd(scoreGap)} USD below it`
          : 'scored the same';
    return `the link pins network ${pinnedNetworkId}; this route ${comparison}`;
  }
  switch (stage) {
    case 'score':
      return `scored ${formatUsd(scoreGap)} USD below the winner`;
    case 'preferred_network':
      return "lost the tie on the region's preferred network order";
    case 'network_id':
      return 'lost the tie on network id order';
    case 'region':
      return 'lost the tie on region key order';
  }
}
