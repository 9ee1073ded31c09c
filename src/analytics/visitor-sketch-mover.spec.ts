import { streamsWrittenThrough } from './visitor-sketch-mover';

describe('streamsWrittenThrough', () => {
  const DAY_END = Date.parse('2026-11-25T00:00:00.000Z');
  const HOUR = 3_600_000;

  it('should wait while a stream holds a click admitted before the end of the day', () => {
    const now = DAY_END + 25 * HOUR;
    expect(streamsWrittenThrough([null, `${DAY_END - 1}-0`], '2026-11-24', now, now)).toBe(false);
    expect(streamsWrittenThrough([null, `${DAY_END}-3`], '2026-11-24', now, now)).toBe(true);
    expect(streamsWrittenThrough([null, null], '2026-11-24', now, now)).toBe(true);
  });

  it('should measure an entry’s age on the wall clock, whatever the service’s clock says', () => {
    // The service's clock a year ahead (a test's): an entry written 10 hours ago (wall clock)
    // is after the end of a day that ended 25 hours ago on the service's clock.
    const wallNow = DAY_END + 25 * HOUR - 365 * 24 * HOUR;
    const entry = `${wallNow - 10 * HOUR}-0`;
    expect(streamsWrittenThrough([entry], '2026-11-24', DAY_END + 25 * HOUR, wallNow)).toBe(true);
    const older = `${wallNow - 26 * HOUR}-0`;
    expect(streamsWrittenThrough([older], '2026-11-24', DAY_END + 25 * HOUR, wallNow)).toBe(false);
  });
});
