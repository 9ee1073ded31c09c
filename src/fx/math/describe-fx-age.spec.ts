import * as fc from 'fast-check';
import { describeFxAge, FxAge } from './describe-fx-age';

const HOUR_MS = 3_600_000;
const VALID_AT = '2026-11-20T00:00:00.000Z';
const T0 = Date.parse(VALID_AT);

describe(describeFxAge.name, () => {
  it.each<[string, number, number, FxAge]>([
    ['the rates were just fetched', 0, 6, { ageHours: 0, isStale: false, confidencePenalty: 0 }],
    [
      '2.5 h have passed',
      2.5 * HOUR_MS,
      6,
      { ageHours: 2.5, isStale: false, confidencePenalty: 0 },
    ],
    ['1 ms is left', 6 * HOUR_MS - 1, 6, { ageHours: 6, isStale: false, confidencePenalty: 0 }],
    [
      'exactly staleAfterHours have passed',
      6 * HOUR_MS,
      6,
      { ageHours: 6, isStale: false, confidencePenalty: 0 },
    ],
    [
      'staleAfterHours and 1 ms have passed',
      6 * HOUR_MS + 1,
      6,
      { ageHours: 6, isStale: true, confidencePenalty: -0.02 },
    ],
    [
      'the [G] limit of 36 h is configured and 30 h have passed',
      30 * HOUR_MS,
      36,
      { ageHours: 30, isStale: false, confidencePenalty: 0 },
    ],
    [
      'two days have passed',
      48 * HOUR_MS + 0.26 * HOUR_MS,
      36,
      { ageHours: 48.3, isStale: true, confidencePenalty: -0.02 },
    ],
    [
      'the timestamp is in the future',
      -2 * HOUR_MS,
      6,
      { ageHours: 0, isStale: false, confidencePenalty: 0 },
    ],
  ])('should describe the age when %s', (_case, elapsedMs, staleAfterHours, expected) => {
    expect(describeFxAge(VALID_AT, T0 + elapsedMs, staleAfterHours)).toEqual(expected);
  });

  it('should throw a RangeError when the timestamp is not a date', () => {
    expect(() => describeFxAge('yesterday', T0, 6)).toThrow(RangeError);
  });

  it('should turn stale exactly 1 ms after staleAfterHours, for any limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 720 }), (staleAfterHours) => {
        const boundary = T0 + staleAfterHours * HOUR_MS;

        expect(describeFxAge(VALID_AT, boundary, staleAfterHours).isStale).toBe(false);
        expect(describeFxAge(VALID_AT, boundary + 1, staleAfterHours)).toMatchObject({
          isStale: true,
          confidencePenalty: -0.02,
        });
      }),
    );
  });
});
