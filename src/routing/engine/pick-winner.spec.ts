import type { NetworkId } from '../../merchants/kb/merchant-profile';
import { buildRegion, NOW_MS } from './engine.fixtures';
import { isPinActive, pickWinner } from './pick-winner';
import type { ScoredCandidate } from './score-candidates';

function scored(networkId: NetworkId, finalScore: number): ScoredCandidate {
  return {
    regionKey: 'US',
    region: buildRegion('shop.example.com'),
    tier: 1,
    networkId,
    affiliateId: 'a',
    epcHint: finalScore,
    fxRate: 1,
    signals: [],
    epcBaseUsd: finalScore,
    blend: null,
    intermediateScore: finalScore,
    confidence: { base: 1, fxPenalty: 0, deepLinkPenalty: 0, unclamped: 1, factor: 1 },
    finalScore,
  };
}

const ranked = [scored('cj', 0.09), scored('awin', 0.07)];

describe(isPinActive.name, () => {
  it.each([
    { expiresAt: undefined, expected: true },
    { expiresAt: '2026-12-01T12:00:00.001Z', expected: true },
    { expiresAt: '2026-12-01T12:00:00.000Z', expected: false },
    { expiresAt: '2026-11-30T00:00:00Z', expected: false },
    { expiresAt: 'next tuesday', expected: false },
  ])('should be $expected for expiresAt $expiresAt', ({ expiresAt, expected }) => {
    expect(isPinActive({ networkId: 'awin', expiresAt }, NOW_MS)).toBe(expected);
  });
});

describe(pickWinner.name, () => {
  it('should pick the best score without a pin', () => {
    const choice = pickWinner(ranked, undefined, NOW_MS);
    expect(choice.winner.networkId).toBe('cj');
    expect(choice.others.map((c) => c.networkId)).toEqual(['awin']);
    expect(choice.networkOverride).toBeNull();
  });

  it('should pick the pinned network whatever its score', () => {
    const choice = pickWinner(ranked, { networkId: 'awin' }, NOW_MS);
    expect(choice.winner.networkId).toBe('awin');
    expect(choice.others.map((c) => c.networkId)).toEqual(['cj']);
    expect(choice.networkOverride).toEqual({ networkId: 'awin', status: 'applied' });
  });

  it('should fall back to the best score when the pinned network is no candidate', () => {
    const choice = pickWinner(ranked, { networkId: 'impact' }, NOW_MS);
    expect(choice.winner.networkId).toBe('cj');
    expect(choice.networkOverride).toEqual({ networkId: 'impact', status: 'unavailable' });
  });

  it('should ignore an expired pin', () => {
    const choice = pickWinner(
      ranked,
      { networkId: 'awin', expiresAt: '2026-01-01T00:00:00Z' },
      NOW_MS,
    );
    expect(choice.winner.networkId).toBe('cj');
    expect(choice.networkOverride).toEqual({ networkId: 'awin', status: 'expired' });
  });

  describe('with an exploration lane', () => {
    const three = [scored('cj', 0.09), scored('awin', 0.07), scored('impact', 0.05)];

    it.each([
      { lane: 0, expected: 'awin' },
      { lane: 1, expected: 'impact' },
      { lane: 2, expected: 'awin' },
      { lane: 59, expected: 'impact' },
    ])('should take the other candidate lane $lane names ($expected)', ({ lane, expected }) => {
      const choice = pickWinner(three, undefined, NOW_MS, lane);
      expect(choice.winner.networkId).toBe(expected);
      expect(choice.isExploration).toBe(true);
      expect(choice.others[0].networkId).toBe('cj');
    });

    it('should keep the best without a lane', () => {
      const choice = pickWinner(three, undefined, NOW_MS, null);
      expect(choice.winner.networkId).toBe('cj');
      expect(choice.isExploration).toBe(false);
    });

    it('should never explore away from an applied pin', () => {
      const choice = pickWinner(three, { networkId: 'impact' }, NOW_MS, 0);
      expect(choice.winner.networkId).toBe('impact');
      expect(choice.isExploration).toBe(false);
    });

    it('should keep the only candidate', () => {
      const choice = pickWinner([scored('cj', 0.09)], undefined, NOW_MS, 3);
      expect(choice.winner.networkId).toBe('cj');
      expect(choice.isExploration).toBe(false);
    });
  });
});
