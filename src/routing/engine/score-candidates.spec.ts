import type { NetworkId } from '../../merchants/kb/merchant-profile';
import { buildProfile, buildRegion, fxSnapshot, visitorContext } from './engine.fixtures';
import type { Candidate } from './list-candidates';
import { PRESET_WEIGHTS } from './presets';
import type { RoutingSignal } from './routing-types';
import {
  compareCandidates,
  intermediateScoreOf,
  rankStage,
  scoreCandidates,
} from './score-candidates';

const region = buildRegion('shop.example.com', { preferredNetworks: ['cj', 'awin'] });
const merchant = buildProfile({ US: region });

function candidate(networkId: NetworkId, epcHint: number, regionKey = 'US'): Candidate {
  return { regionKey, region, tier: 1, networkId, affiliateId: 'a', epcHint, fxRate: 1 };
}

const context = {
  merchant,
  market: 'US',
  category: undefined,
  deepLinkStatus: 'validated' as const,
  healthStatus: 'ok' as const,
  visitor: visitorContext(),
  fx: fxSnapshot(),
  weights: PRESET_WEIGHTS.default,
};

function signal(name: RoutingSignal['name'], value: number, weight: number): RoutingSignal {
  return { name, value, weight, label: name, source: 'essential' };
}

describe(intermediateScoreOf.name, () => {
  it('should multiply epc_base by each other signal raised to its weight', () => {
    const signals = [
      signal('epc_base', 0.1, 1),
      signal('fx', 83.2, 0),
      signal('device', 1.1, 2),
      signal('refund', 0.8, 0.5),
    ];
    expect(intermediateScoreOf(signals)).toBeCloseTo(0.1 * 1.1 ** 2 * Math.sqrt(0.8), 12);
  });

  it('should never use epc_base as an exponent base, whatever its weight', () => {
    expect(intermediateScoreOf([signal('epc_base', 0.1, 3)])).toBe(0.1);
  });
});

describe(scoreCandidates.name, () => {
  it('should rank the higher EPC first and set finalScore = intermediateScore * C_r', () => {
    const [best, second] = scoreCandidates(
      [candidate('awin', 0.04), candidate('cj', 0.06)],
      context,
    );
    expect(best.networkId).toBe('cj');
    expect(second.networkId).toBe('awin');
    expect(best.finalScore).toBe(best.intermediateScore * best.confidence.factor);
    expect(best.epcBaseUsd).toBe(0.06);
  });

  it("should break an exact tie by the region's preferred network order", () => {
    const ranked = scoreCandidates([candidate('awin', 0.05), candidate('cj', 0.05)], context);
    expect(ranked.map((c) => c.networkId)).toEqual(['cj', 'awin']);
    expect(rankStage(ranked[0], ranked[1])).toBe('preferred_network');
  });

  it('should break a tie between networks outside the preferred list by network id', () => {
    const ranked = scoreCandidates(
      [candidate('impact', 0.05), candidate('cuelinks', 0.05)],
      context,
    );
    expect(ranked.map((c) => c.networkId)).toEqual(['cuelinks', 'impact']);
    expect(rankStage(ranked[0], ranked[1])).toBe('network_id');
  });

  it('should break a tie on the same network by region key', () => {
    const ranked = scoreCandidates(
      [candidate('cj', 0.05, 'ZZ'), candidate('cj', 0.05, 'AA')],
      context,
    );
    expect(ranked.map((c) => c.regionKey)).toEqual(['AA', 'ZZ']);
    expect(rankStage(ranked[0], ranked[1])).toBe('region');
  });

  it('should give the same order whatever the input order', () => {
    const inputs = [candidate('awin', 0.05), candidate('cj', 0.05), candidate('impact', 0.07)];
    const forward = scoreCandidates(inputs, context).map((c) => c.networkId);
    const backward = scoreCandidates([...inputs].reverse(), context).map((c) => c.networkId);
    expect(backward).toEqual(forward);
    const [a, b] = scoreCandidates(inputs, context);
    expect(compareCandidates(a, b)).toBeLessThan(0);
    expect(rankStage(a, b)).toBe('score');
  });
});
