// Routing that learns (docs/routing.md section 10): each candidate's EPC is a Bayesian
// shrinkage of its hint toward the creator's own realised EPC on that route, and a small,
// deterministic share of visitors explores a route other than the best one. Pure arithmetic:
// the observations and the visitor's draw come in as arguments.
import type { NetworkId } from '../../merchants/kb/merchant-profile';

/** What a creator's own clicks and commissions say about one route over the trailing window. */
export interface ObservedRoute {
  /** Counted clicks sent to the route. */
  clicks: number;
  /** Commission in USD attributed to those clicks (approved and pending, reversals subtracted). */
  commissionUsd: number;
}

/**
 * A creator's observations per route, keyed by `routeKey(merchantId, region, networkId)`. A
 * plain object, not a Map: decision keys tag inputs by their JSON content.
 */
export type ObservedRoutes = Readonly<Record<string, ObservedRoute>>;

/** The learned mode's settings and the creator's observations: present only for `learned`. */
export interface RouteLearning {
  /** k: how many clicks the hint is worth in the blend (> 0). */
  priorClicks: number;
  /** The share of visitors (0 to 1) who explore a route other than the best. */
  explorationShare: number;
  observed: ObservedRoutes;
}

/** One candidate's blend, as the trace shows it. */
export interface BlendedEpc {
  /** The hint in USD per click (epc hint / FX rate). */
  hintEpcUsd: number;
  /** Observed clicks and commission (USD) on the route. */
  clicks: number;
  commissionUsd: number;
  /** (k × hintEpcUsd + commissionUsd) / (k + clicks). */
  blendedEpcUsd: number;
  /** The observed figure's share in the blend: clicks / (k + clicks); the hint has the rest. */
  weight: number;
}

const NO_OBSERVATION: ObservedRoute = { clicks: 0, commissionUsd: 0 };

/** The key of a route in `ObservedRoutes`. */
export function routeKey(merchantId: string, region: string, networkId: NetworkId): string {
  return `${merchantId}|${region}|${networkId}`;
}

/**
 * The shrinkage estimate: the hint counts as `priorClicks` clicks earning the hint each, so a
 * route with few clicks keeps (nearly) its hint and one with many earns its own figure.
 */
export function blendEpc(
  hintEpcUsd: number,
  observed: ObservedRoute | undefined,
  priorClicks: number,
): BlendedEpc {
  const { clicks, commissionUsd } = observed ?? NO_OBSERVATION;
  return {
    hintEpcUsd,
    clicks,
    commissionUsd,
    blendedEpcUsd: (priorClicks * hintEpcUsd + commissionUsd) / (priorClicks + clicks),
    weight: clicks / (priorClicks + clicks),
  };
}

/**
 * Exploration lanes: an exploring visitor's lane picks one of the other candidates (lane
 * modulo their count). 60 is divisible by every count from 1 to 6, so with up to six others
 * each is explored equally often; few enough that the edge can memoise a route per lane.
 */
export const EXPLORATION_LANES = 60;

/**
 * The exploration lane of a visitor whose draw (uniform in [0, 1), fixed per visitor, link and
 * day) is `draw`: null (take the best route) unless the draw falls in the exploration share.
 */
export function explorationLaneOf(draw: number, explorationShare: number): number | null {
  if (!(draw < explorationShare)) return null;
  return Math.min(EXPLORATION_LANES - 1, Math.floor((draw / explorationShare) * EXPLORATION_LANES));
}

/** One (route, clicks) or (route, commission) row of a stats source. */
export interface RouteFigure {
  merchantId: string;
  region: string;
  networkId: NetworkId;
  value: number;
}

/**
 * A creator's observations from the click counts and the commission per route over the same
 * window. Commission on a route with no counted click (clicks of an earlier window) is left
 * out: a realised EPC needs clicks to divide by.
 */
export function observedRoutesFrom(
  clicks: readonly RouteFigure[],
  commissions: readonly RouteFigure[],
): ObservedRoutes {
  const observed: Record<string, ObservedRoute> = {};
  for (const row of clicks) {
    if (row.value <= 0) continue;
    const key = routeKey(row.merchantId, row.region, row.networkId);
    const held = observed[key] ?? { clicks: 0, commissionUsd: 0 };
    observed[key] = { clicks: held.clicks + row.value, commissionUsd: held.commissionUsd };
  }
  for (const row of commissions) {
    const key = routeKey(row.merchantId, row.region, row.networkId);
    const held = observed[key];
    if (held === undefined) continue;
    observed[key] = { clicks: held.clicks, commissionUsd: held.commissionUsd + row.value };
  }
  return observed;
}
