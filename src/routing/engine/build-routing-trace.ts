import { confidencePercent } from './confidence';
import { explainWhyNotChosen } from './explain';
import type { WinnerChoice } from './pick-winner';
import type {
  RegionTier,
  RoutingPresetId,
  RoutingTrace,
  TraceExclusion,
  TraceRoute,
} from './routing-types';
import { rankStage, type ScoredCandidate } from './score-candidates';

/** Everything a routed or fallback decision's trace is made of. */
export interface RoutingTraceInput {
  merchantId: string;
  choice: WinnerChoice;
  /** Candidates dropped before scoring, with the reason. */
  excluded: TraceExclusion[];
  preset: RoutingPresetId;
  market: string;
  regionTier: RegionTier;
  /** Learned routing's settings, when the creator routes `learned`. */
  learning?: { priorClicks: number; explorationShare: number };
}

/**
 * The trace (crcTrace) of a routed or fallback decision: the winner, the other scored
 * candidates best first with why each lost, the dropped ones, the winner's signals and score.
 */
export function buildRoutingTrace(input: RoutingTraceInput): RoutingTrace {
  const { merchantId, choice } = input;
  const { winner } = choice;
  const pinnedNetworkId =
    choice.networkOverride?.status === 'applied' ? choice.networkOverride.networkId : null;
  return {
    winner: toTraceRoute(merchantId, winner),
    alternatives: choice.others.map((other) => ({
      ...toTraceRoute(merchantId, other),
      whyNotChosen: explainWhyNotChosen({
        stage: rankStage(winner, other),
        scoreGap: winner.finalScore - other.finalScore,
        pinnedNetworkId,
        isExploration: choice.isExploration,
      }),
    })),
    excluded: input.excluded,
    signals: winner.signals,
    scoringFormula: {
      intermediateScore: winner.intermediateScore,
      confidenceFactor: winner.confidence.factor,
      finalScore: winner.finalScore,
    },
    preset: input.preset,
    market: input.market,
    regionTier: input.regionTier,
    networkOverride: choice.networkOverride,
    ...(input.learning === undefined
      ? {}
      : {
          learning: {
            mode: 'learned' as const,
            priorClicks: input.learning.priorClicks,
            explorationShare: input.learning.explorationShare,
            isExploration: choice.isExploration,
          },
        }),
  };
}

/** The trace of a passthrough decision: no winner, no score, only how far routing got. */
export function buildPassthroughTrace(
  preset: RoutingPresetId,
  context: { market?: string; excluded?: TraceExclusion[] },
): RoutingTrace {
  return {
    winner: null,
    alternatives: [],
    excluded: context.excluded ?? [],
    signals: [],
    scoringFormula: null,
    preset,
    market: context.market ?? null,
    regionTier: null,
    networkOverride: null,
  };
}

function toTraceRoute(merchantId: string, candidate: ScoredCandidate): TraceRoute {
  const route: TraceRoute = {
    merchantId,
    networkId: candidate.networkId,
    region: candidate.regionKey,
    routeScore: candidate.finalScore,
    normalizedEpcUsd: candidate.intermediateScore,
    confidence: confidencePercent(candidate.confidence.factor),
  };
  if (candidate.blend !== null) route.learning = candidate.blend;
  return route;
}
