// A simulation of one creator's clicks and conversions under hinted and learned routing, on the
// pure engine and the observation arithmetic the server uses (docs/routing.md section 11). Not
// used by production code. Deterministic: every random number comes from a seeded generator.
import type { NetworkId } from '../../merchants/kb/merchant-profile';
import { decideRoute } from './decide-route';
import { buildProfile, buildRegion, fxSnapshot, linkInput, NOW_MS } from './engine.fixtures';
import { explorationLaneOf, observedRoutesFrom, type RouteFigure } from './learned-epc';
import type { RoutingDecision, VisitorContext } from './routing-types';

/** One network's hint (what the knowledge base says) and truth (what the creator's clicks earn). */
export interface SimulatedNetwork {
  networkId: NetworkId;
  hintEpcUsd: number;
  /** Each click converts with this probability... */
  conversionRate: number;
  /** ...and a conversion pays this much: the true EPC is their product. */
  commissionUsd: number;
}

export interface SimulationSettings {
  networks: readonly SimulatedNetwork[];
  mode: 'hinted' | 'learned';
  clicks: number;
  priorClicks: number;
  explorationShare: number;
  /** The server re-reads a creator's observations this often (ROUTING_STATS_REFRESH_S), in clicks. */
  refreshEveryClicks: number;
  seed: number;
}

export interface SimulationResult {
  /** The network of each click, in order. */
  routes: NetworkId[];
  commissionUsd: number;
  /** Commission per network. */
  commissionByNetwork: Partial<Record<NetworkId, number>>;
}

/** mulberry32: a small seeded generator of uniform numbers in [0, 1). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const URL = 'https://shop.example.com/p/trail-shoe-42';
const VISITOR: VisitorContext = {
  country: 'US',
  device: 'desktop',
  os: null,
  isInAppBrowser: false,
};

/**
 * Drives `clicks` visitors of one link: each is routed by the engine (learned: with the
 * observations as last read, and the visitor's exploration lane), converts with its network's
 * rate, and its click and commission join the observations the next re-read sees.
 */
export function simulateCreator(settings: SimulationSettings): SimulationResult {
  const random = seededRandom(settings.seed);
  const merchant = buildProfile(
    {
      US: buildRegion('shop.example.com', {
        epcHints: Object.fromEntries(settings.networks.map((n) => [n.networkId, n.hintEpcUsd])),
        preferredNetworks: settings.networks.map((n) => n.networkId),
        availabilityFlags: {
          globalAvailability: false,
          stockAware: false,
          shipsToCountries: ['US'],
        },
      }),
    },
    { supportedNetworks: settings.networks.map((n) => n.networkId) },
  );
  const fx = fxSnapshot();
  const byNetwork = new Map(settings.networks.map((n) => [n.networkId, n]));
  const clicks = new Map<NetworkId, number>();
  const earned = new Map<NetworkId, number>();
  const routes: NetworkId[] = [];
  let commissionUsd = 0;
  // The decisions of one refresh period: the best route, and one per exploration lane taken.
  let decisions = new Map<number | null, RoutingDecision>();
  let link = linkInput(merchant, URL);

  for (let click = 0; click < settings.clicks; click += 1) {
    if (settings.mode === 'learned' && click % settings.refreshEveryClicks === 0) {
      link = linkInput(merchant, URL, {
        learning: {
          priorClicks: settings.priorClicks,
          explorationShare: settings.explorationShare,
          observed: observedRoutesFrom(figures(clicks), figures(earned)),
        },
      });
      decisions = new Map();
    }
    const draw = random();
    const lane =
      settings.mode === 'learned' ? explorationLaneOf(draw, settings.explorationShare) : null;
    let decision = decisions.get(lane);
    if (decision === undefined) {
      decision = decideRoute(link, VISITOR, fx, NOW_MS, lane);
      decisions.set(lane, decision);
    }
    const networkId = decision.networkId as NetworkId;
    const network = byNetwork.get(networkId) as SimulatedNetwork;
    routes.push(networkId);
    clicks.set(networkId, (clicks.get(networkId) ?? 0) + 1);
    if (random() < network.conversionRate) {
      commissionUsd += network.commissionUsd;
      earned.set(networkId, (earned.get(networkId) ?? 0) + network.commissionUsd);
    }
  }
  return { routes, commissionUsd, commissionByNetwork: Object.fromEntries(earned) };
}

function figures(values: Map<NetworkId, number>): RouteFigure[] {
  return [...values].map(([networkId, value]) => ({
    merchantId: 'testshop',
    region: 'US',
    networkId,
    value,
  }));
}

/**
 * The first click count after which every trailing window of `window` clicks sent more than
 * `share` of its clicks to `networkId`; null when that never holds to the end.
 */
export function clicksUntilShareHolds(
  routes: readonly NetworkId[],
  networkId: NetworkId,
  share: number,
  window: number,
): number | null {
  let inWindow = 0;
  let holdsFrom: number | null = null;
  for (let i = 0; i < routes.length; i += 1) {
    if (routes[i] === networkId) inWindow += 1;
    if (i >= window && routes[i - window] === networkId) inWindow -= 1;
    if (i + 1 < window) continue;
    if (inWindow / window > share) holdsFrom ??= i + 1;
    else holdsFrom = null;
  }
  return holdsFrom;
}
