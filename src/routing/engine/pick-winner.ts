import type { NetworkOverridePin, TraceNetworkOverride } from './routing-types';
import type { ScoredCandidate } from './score-candidates';

export interface WinnerChoice {
  winner: ScoredCandidate;
  /** The other candidates, best first. */
  others: ScoredCandidate[];
  /** What became of the link's pin; null when it has none. */
  networkOverride: TraceNetworkOverride | null;
  /** The visitor's exploration lane chose the winner instead of the best candidate. */
  isExploration: boolean;
}

/**
 * True while a pin holds at `nowMs`: no `expiresAt`, or one still in the future. An
 * unparsable `expiresAt` counts as expired, so a bad value can never force a network.
 */
export function isPinActive(pin: NetworkOverridePin, nowMs: number): boolean {
  if (pin.expiresAt === undefined) {
    return true;
  }
  const expiresAtMs = Date.parse(pin.expiresAt);
  return Number.isFinite(expiresAtMs) && expiresAtMs > nowMs;
}

/**
 * The winner among ranked candidates (best first, non-empty): the best-ranked candidate on an
 * active pinned network whatever its score, else the best score. A pin with no candidate in
 * the chosen regions is `unavailable` and the EPC choice applies. An exploration lane (learned
 * routing, explorationLaneOf) takes, instead of the best, the other candidate it names (lane
 * modulo their count); an applied pin is never explored away from.
 */
export function pickWinner(
  ranked: readonly ScoredCandidate[],
  pin: NetworkOverridePin | undefined,
  nowMs: number,
  explorationLane: number | null = null,
): WinnerChoice {
  let winner = ranked[0];
  let networkOverride: TraceNetworkOverride | null = null;
  if (pin !== undefined) {
    if (!isPinActive(pin, nowMs)) {
      networkOverride = { networkId: pin.networkId, status: 'expired' };
    } else {
      const pinned = ranked.find((candidate) => candidate.networkId === pin.networkId);
      networkOverride = {
        networkId: pin.networkId,
        status: pinned === undefined ? 'unavailable' : 'applied',
      };
      winner = pinned ?? winner;
    }
  }
  const isExploration =
    explorationLane !== null && networkOverride?.status !== 'applied' && ranked.length > 1;
  if (isExploration) {
    const others = ranked.slice(1);
    winner = others[explorationLane % others.length];
  }
  return { winner, others: ranked.filter((c) => c !== winner), networkOverride, isExploration };
}
