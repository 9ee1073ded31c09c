import fc from 'fast-check';
import {
  blendEpc,
  EXPLORATION_LANES,
  explorationLaneOf,
  observedRoutesFrom,
  routeKey,
} from './learned-epc';

describe(blendEpc.name, () => {
  it.each([
    // No data: the hint itself, with no weight on observations.
    { hint: 0.05, clicks: 0, commission: 0, k: 200, blended: 0.05, weight: 0 },
    // As many clicks as the prior: halfway between the hint and the realised 0.01.
    { hint: 0.05, clicks: 200, commission: 2, k: 200, blended: 0.03, weight: 0.5 },
    // Much data: close to the realised 0.10.
    { hint: 0.05, clicks: 19_800, commission: 1_980, k: 200, blended: 0.0995, weight: 0.99 },
    // A route that earned nothing sinks toward zero.
    { hint: 0.04, clicks: 600, commission: 0, k: 200, blended: 0.01, weight: 0.75 },
  ])(
    'should give $blended for hint $hint, $clicks clicks earning $commission, k $k',
    ({ hint, clicks, commission, k, blended, weight }) => {
      const result = blendEpc(hint, { clicks, commissionUsd: commission }, k);
      expect(result.blendedEpcUsd).toBeCloseTo(blended, 10);
      expect(result.weight).toBeCloseTo(weight, 10);
      expect(result).toMatchObject({ hintEpcUsd: hint, clicks, commissionUsd: commission });
    },
  );

  it('should keep the hint for a route with no observation', () => {
    expect(blendEpc(0.07, undefined, 200)).toEqual({
      hintEpcUsd: 0.07,
      clicks: 0,
      commissionUsd: 0,
      blendedEpcUsd: 0.07,
      weight: 0,
    });
  });

  it('should lie between the hint and the realised EPC', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.0001, max: 10, noNaN: true }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.double({ min: 0, max: 10, noNaN: true }),
        fc.integer({ min: 1, max: 10_000 }),
        (hint, clicks, realised, k) => {
          const { blendedEpcUsd } = blendEpc(hint, { clicks, commissionUsd: realised * clicks }, k);
          expect(blendedEpcUsd).toBeGreaterThanOrEqual(Math.min(hint, realised) * (1 - 1e-9));
          expect(blendedEpcUsd).toBeLessThanOrEqual(Math.max(hint, realised) * (1 + 1e-9));
        },
      ),
    );
  });
});

describe(explorationLaneOf.name, () => {
  it.each([
    { draw: 0, share: 0.05, lane: 0 },
    { draw: 0.0249, share: 0.05, lane: 29 },
    { draw: 0.04999, share: 0.05, lane: 59 },
    { draw: 0.05, share: 0.05, lane: null },
    { draw: 0.9, share: 0.05, lane: null },
    { draw: 0, share: 0, lane: null },
  ])('should give lane $lane for draw $draw at share $share', ({ draw, share, lane }) => {
    expect(explorationLaneOf(draw, share)).toBe(lane);
  });

  it('should explore the share of draws, spread over every lane', () => {
    const draws = 100_000;
    const lanes = new Map<number, number>();
    let explored = 0;
    for (let i = 0; i < draws; i += 1) {
      const lane = explorationLaneOf((i + 0.5) / draws, 0.05);
      if (lane === null) continue;
      explored += 1;
      lanes.set(lane, (lanes.get(lane) ?? 0) + 1);
    }
    expect(explored).toBe(5_000);
    expect(lanes.size).toBe(EXPLORATION_LANES);
  });
});

describe(observedRoutesFrom.name, () => {
  it('should add clicks and commission per route and drop commission without clicks', () => {
    const observed = observedRoutesFrom(
      [
        { merchantId: 'nike', region: 'US', networkId: 'cj', value: 300 },
        { merchantId: 'nike', region: 'US', networkId: 'cj', value: 100 },
        { merchantId: 'nike', region: 'US', networkId: 'impact', value: 50 },
      ],
      [
        { merchantId: 'nike', region: 'US', networkId: 'cj', value: 12.5 },
        { merchantId: 'nike', region: 'US', networkId: 'cj', value: -2.5 },
        { merchantId: 'nike', region: 'GB', networkId: 'awin', value: 9 },
      ],
    );
    expect(observed).toEqual({
      [routeKey('nike', 'US', 'cj')]: { clicks: 400, commissionUsd: 10 },
      [routeKey('nike', 'US', 'impact')]: { clicks: 50, commissionUsd: 0 },
    });
  });
});
