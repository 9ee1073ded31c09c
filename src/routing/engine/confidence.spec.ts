import fc from 'fast-check';
import {
  CONFIDENCE_MAX,
  CONFIDENCE_MIN,
  computeConfidence,
  confidencePercent,
  DEEP_LINK_PENALTY,
  STALE_FX_PENALTY,
} from './confidence';
import type { DeepLinkStatus } from './routing-types';

const deepLinkStatus = fc.constantFrom<DeepLinkStatus>(
  'validated',
  'unchecked',
  'invalid',
  'ttl_expired',
);
const score = fc.double({ min: 0, max: 100, noNaN: true });

describe(computeConfidence.name, () => {
  it.each([
    { dcs: 80, trust: 83, stale: false, status: 'validated', factor: 1.0245 },
    { dcs: 100, trust: 100, stale: false, status: 'validated', factor: 1.1 },
    { dcs: 94, trust: 92, stale: false, status: 'unchecked', factor: 1.073 },
    { dcs: 94, trust: 92, stale: true, status: 'unchecked', factor: 1.053 },
    { dcs: 94, trust: 92, stale: false, status: 'invalid', factor: 1.023 },
    { dcs: 94, trust: 92, stale: true, status: 'ttl_expired', factor: 1.003 },
    { dcs: 0, trust: 0, stale: false, status: 'validated', factor: 0.7 },
    { dcs: 0, trust: 0, stale: true, status: 'invalid', factor: 0.65 },
  ] as const)(
    'should give $factor for data $dcs, trust $trust, stale $stale, deep link $status',
    ({ dcs, trust, stale, status, factor }) => {
      const result = computeConfidence({
        dataConfidenceScore: dcs,
        trustScore: trust,
        isFxStale: stale,
        deepLinkStatus: status,
      });
      expect(result.factor).toBeCloseTo(factor, 12);
    },
  );

  it('should report the value before clamping', () => {
    const result = computeConfidence({
      dataConfidenceScore: 0,
      trustScore: 0,
      isFxStale: true,
      deepLinkStatus: 'invalid',
    });
    expect(result.unclamped).toBeCloseTo(0.63, 12);
    expect(result.factor).toBe(CONFIDENCE_MIN);
  });

  it('should stay within [0.65, 1.10] for any input', () => {
    fc.assert(
      fc.property(score, score, fc.boolean(), deepLinkStatus, (dcs, trust, stale, status) => {
        const { factor } = computeConfidence({
          dataConfidenceScore: dcs,
          trustScore: trust,
          isFxStale: stale,
          deepLinkStatus: status,
        });
        expect(factor).toBeGreaterThanOrEqual(CONFIDENCE_MIN);
        expect(factor).toBeLessThanOrEqual(CONFIDENCE_MAX);
      }),
    );
  });

  it('should lower the unclamped factor by exactly 0.02 when FX is stale', () => {
    fc.assert(
      fc.property(score, score, deepLinkStatus, (dcs, trust, status) => {
        const input = { dataConfidenceScore: dcs, trustScore: trust, deepLinkStatus: status };
        const fresh = computeConfidence({ ...input, isFxStale: false });
        const stale = computeConfidence({ ...input, isFxStale: true });
        expect(stale.fxPenalty).toBe(-0.02);
        expect(fresh.fxPenalty).toBe(0);
        expect(stale.base).toBe(fresh.base);
        expect(stale.deepLinkPenalty).toBe(fresh.deepLinkPenalty);
        expect(fresh.unclamped - stale.unclamped).toBeCloseTo(0.02, 12);
      }),
    );
  });

  it('should apply the -0.05 deep-link penalty only to invalid and expired deep links', () => {
    const penaltyOf = (status: DeepLinkStatus): number =>
      computeConfidence({
        dataConfidenceScore: 80,
        trustScore: 80,
        isFxStale: false,
        deepLinkStatus: status,
      }).deepLinkPenalty;
    expect([penaltyOf('validated'), penaltyOf('unchecked')]).toEqual([0, 0]);
    expect([penaltyOf('invalid'), penaltyOf('ttl_expired')]).toEqual([
      DEEP_LINK_PENALTY,
      DEEP_LINK_PENALTY,
    ]);
    expect(STALE_FX_PENALTY).toBe(-0.02);
  });
});

describe(confidencePercent.name, () => {
  it.each([
    { factor: 0.65, expected: 65 },
    { factor: 0.874, expected: 87 },
    { factor: 0.995, expected: 100 },
    { factor: 1.0245, expected: 100 },
    { factor: 1.1, expected: 100 },
  ])('should show $factor as $expected', ({ factor, expected }) => {
    expect(confidencePercent(factor)).toBe(expected);
  });
});
