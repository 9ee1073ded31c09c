import {
  classifyFxHealth,
  FxHealthCheck,
  FxRefreshFailure,
  LatestFxRates,
} from './classify-fx-health';

const HOUR_MS = 3_600_000;
const VALID_AT = '2026-11-21T00:02:31.000Z';
const FETCHED_AT_MS = Date.parse('2026-11-21T00:05:00.000Z');
const LATEST: LatestFxRates = { validAt: VALID_AT, fetchedAtMs: FETCHED_AT_MS };
const NOW_MS = Date.parse(VALID_AT) + 2 * HOUR_MS;
const failureAt = (atMs: number): FxRefreshFailure => ({ atMs, reasons: ['primary: HTTP 500'] });

describe(classifyFxHealth.name, () => {
  it.each<[string, LatestFxRates | null, FxRefreshFailure | null, number, FxHealthCheck]>([
    ['fresh rates and no failure', LATEST, null, NOW_MS, { status: 'ok', ageHours: 2 }],
    [
      'rates older than the limit',
      LATEST,
      null,
      Date.parse(VALID_AT) + 6 * HOUR_MS + 1,
      { status: 'stale', ageHours: 6 },
    ],
    [
      'a failure after the latest fetch',
      LATEST,
      failureAt(FETCHED_AT_MS + HOUR_MS),
      NOW_MS,
      {
        status: 'refresh_failed',
        ageHours: 2,
        lastRefreshFailedAt: '2026-11-21T01:05:00.000Z',
        lastRefreshFailureReasons: ['primary: HTTP 500'],
      },
    ],
    [
      'a failure after the latest fetch, with stale rates',
      LATEST,
      failureAt(FETCHED_AT_MS + HOUR_MS),
      NOW_MS + 10 * HOUR_MS,
      expect.objectContaining({ status: 'refresh_failed', ageHours: 12 }),
    ],
    [
      'a failure that newer rates (another process) replaced',
      LATEST,
      failureAt(FETCHED_AT_MS - 1),
      NOW_MS,
      { status: 'ok', ageHours: 2 },
    ],
    ['no rates at all', null, null, NOW_MS, { status: 'missing', ageHours: null }],
    [
      'no rates and a failure',
      null,
      failureAt(NOW_MS),
      NOW_MS,
      expect.objectContaining({
        status: 'missing',
        ageHours: null,
        lastRefreshFailedAt: expect.any(String),
      }),
    ],
  ])('should report %s', (_case, latest, failure, nowMs, expected) => {
    expect(classifyFxHealth(latest, failure, nowMs, 6)).toEqual(expected);
  });
});
