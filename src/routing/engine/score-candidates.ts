import { computeConfidence, type ConfidenceBreakdown } from './confidence';
import { blendEpc, routeKey, type BlendedEpc, type RouteLearning } from './learned-epc';
import type { Candidate } from './list-candidates';
import { computeSignals, type SignalContext } from './signals';
import type { RankStage, RoutingSignal } from './routing-types';

export type { RankStage };

/** A candidate with its signals and scores. */
export interface ScoredCandidate extends Candidate {
  signals: RoutingSignal[];
  /** epc_base: epcHint / fxRate, USD per click; in learned routing the blend. */
  epcBaseUsd: number;
  /** Learned routing: the hint, the observations and their blend; null when hinted. */
  blend: BlendedEpc | null;
  /** epcBaseUsd * prod(value ^ weight) over every other signal; the decision's normalizedEpcUsd. */
  intermediateScore: number;
  confidence: ConfidenceBreakdown;
  /** intermediateScore * C_r; the trace's routeScore. */
  finalScore: number;
}

/**
 * intermediateScore = epcBaseUsd * prod(value_i ^ weight_i) over every signal but epc_base.
 * fx has weight 0, so it contributes a factor of exactly 1.
 */
export function intermediateScoreOf(signals: readonly RoutingSignal[]): number {
  let score = signalValue(signals, 'epc_base');
  for (const signal of signals) {
    if (signal.name !== 'epc_base') {
      score *= signal.value ** signal.weight;
    }
  }
  return score;
}

/** Scores every candidate (signals, C_r, finalScore) and ranks them best first. */
export function scoreCandidates(
  candidates: readonly Candidate[],
  context: Omit<SignalContext, 'candidate' | 'blend'>,
  learning?: RouteLearning,
): ScoredCandidate[] {
  const scored = candidates.map((candidate): ScoredCandidate => {
    const blend = learning === undefined ? null : blendOf(candidate, context, learning);
    const signals = computeSignals(
      blend === null ? { ...context, candidate } : { ...context, candidate, blend },
    );
    const intermediateScore = intermediateScoreOf(signals);
    const confidence = computeConfidence({
      dataConfidenceScore: context.merchant.meta.dataConfidenceScore,
      trustScore: candidate.region.trustScore,
      isFxStale: context.fx.isStale,
      deepLinkStatus: context.deepLinkStatus,
    });
    return {
      ...candidate,
      signals,
      epcBaseUsd: signalValue(signals, 'epc_base'),
      blend,
      intermediateScore,
      confidence,
      finalScore: intermediateScore * confidence.factor,
    };
  });
  return scored.sort(compareCandidates);
}

// The hint in USD is the prior; the creator's clicks and commission on the route move it.
function blendOf(
  candidate: Candidate,
  context: Pick<SignalContext, 'merchant'>,
  learning: RouteLearning,
): BlendedEpc {
  const key = routeKey(context.merchant.merchantId, candidate.regionKey, candidate.networkId);
  return blendEpc(
    candidate.epcHint / candidate.fxRate,
    learning.observed[key],
    learning.priorClicks,
  );
}

/**
 * Ranking order, best first: higher finalScore; on a tie the network earlier in the region's
 * preferredNetworks; then network id, then region key (lexical), so the order is total.
 */
export function compareCandidates(a: ScoredCandidate, b: ScoredCandidate): number {
  if (a.finalScore !== b.finalScore) {
    return b.finalScore - a.finalScore;
  }
  const preference = preferenceRank(a) - preferenceRank(b);
  if (preference !== 0) {
    return preference;
  }
  return compareText(a.networkId, b.networkId) || compareText(a.regionKey, b.regionKey);
}

/** Which criterion of `compareCandidates` separates the two. */
export function rankStage(a: ScoredCandidate, b: ScoredCandidate): RankStage {
  if (a.finalScore !== b.finalScore) {
    return 'score';
  }
  if (preferenceRank(a) !== preferenceRank(b)) {
    return 'preferred_network';
  }
  return a.networkId !== b.networkId ? 'network_id' : 'region';
}

function preferenceRank(candidate: Candidate): number {
  const index = candidate.region.preferredNetworks.indexOf(candidate.networkId);
  return index === -1 ? Number.MAX_SAFE_INTEGER : index;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function signalValue(signals: readonly RoutingSignal[], name: RoutingSignal['name']): number {
  const signal = signals.find((candidate) => candidate.name === name);
  if (signal === undefined) {
    throw new Error(`signal ${name} missing`);
  }
  return signal.value;
}
