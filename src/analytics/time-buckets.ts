// Time-series buckets in UTC: plain data in and out (analytics/timeseries).
import { startOfDay, startOfNextDay, utcDateOf } from './analytics-dates';

export const TIMESERIES_INTERVALS = ['hour', 'day'] as const;
export type TimeseriesInterval = (typeof TIMESERIES_INTERVALS)[number];

/** One answer holds at most this many buckets per series; a longer range is a 400. */
export const MAX_TIMESERIES_BUCKETS = 1_000;

/**
 * One answer holds at most this many points (series × buckets, zeros included): 10,000 is
 * about 500 KB of JSON. More series than fit is a 400.
 */
export const MAX_TIMESERIES_POINTS = 10_000;

/** How many series fit beside `buckets` buckets each (at least 10 within the bucket limit). */
export function maxSeriesOf(buckets: number): number {
  return Math.floor(MAX_TIMESERIES_POINTS / Math.max(1, buckets));
}

const INTERVAL_MS: Record<TimeseriesInterval, number> = { hour: 3_600_000, day: 86_400_000 };

/**
 * The range asked for, in whole UTC days (both ends inclusive): by default the last 30 days
 * for `day` and the last 2 days for `hour`, ending today; a missing start counts back from
 * the end the same way.
 */
export function timeseriesPeriodOf(
  interval: TimeseriesInterval,
  requested: { from?: string; to?: string },
  nowMs: number,
): { from: string; to: string } {
  const to = requested.to ?? utcDateOf(nowMs);
  const defaultDays = interval === 'day' ? 30 : 2;
  const from =
    requested.from ?? utcDateOf(startOfDay(to).getTime() - (defaultDays - 1) * INTERVAL_MS.day);
  return { from, to };
}

/** The start (ms) of every bucket of the inclusive day range, oldest first. */
export function bucketStartsOf(interval: TimeseriesInterval, from: string, to: string): number[] {
  const starts: number[] = [];
  const end = startOfNextDay(to).getTime();
  for (let start = startOfDay(from).getTime(); start < end; start += INTERVAL_MS[interval]) {
    starts.push(start);
  }
  return starts;
}

/** How many buckets the range has, without building them (to refuse a range early). */
export function bucketCountOf(interval: TimeseriesInterval, from: string, to: string): number {
  const span = startOfNextDay(to).getTime() - startOfDay(from).getTime();
  return Math.max(0, Math.ceil(span / INTERVAL_MS[interval]));
}

export interface BucketCount {
  /** Start of the bucket, ms since the epoch. */
  startMs: number;
  /** The group's value (country, device, ...), null for none or unknown. */
  key: string | null;
  clicks: number;
}

export interface Series {
  key: string | null;
  buckets: { start: string; clicks: number; uniqueVisitors?: number }[];
}

/**
 * One zero-filled series per group key seen (one series, key null, with no grouping or no
 * clicks), keys in ascending order with null last, buckets oldest first.
 */
export function zeroFilledSeries(
  starts: readonly number[],
  counts: readonly BucketCount[],
  grouped: boolean,
): Series[] {
  const byKey = new Map<string | null, Map<number, number>>();
  if (!grouped || counts.length === 0) byKey.set(null, new Map());
  for (const { startMs, key, clicks } of counts) {
    const seriesKey = grouped ? key : null;
    const buckets = byKey.get(seriesKey) ?? new Map<number, number>();
    buckets.set(startMs, (buckets.get(startMs) ?? 0) + clicks);
    byKey.set(seriesKey, buckets);
  }
  // Every series has the same buckets: their labels are formatted once, not once a series.
  const labels = starts.map((startMs) => new Date(startMs).toISOString());
  return [...byKey.entries()]
    .sort(([a], [b]) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1))
    .map(([key, buckets]) => ({
      key,
      buckets: starts.map((startMs, i) => ({
        start: labels[i],
        clicks: buckets.get(startMs) ?? 0,
      })),
    }));
}

/**
 * Each day bucket's unique visitors, from counts by day (`YYYY-MM-DD`; a day absent had
 * none). For day buckets only: an hour has no sketch of its own.
 */
export function withUniqueVisitors(
  series: Series,
  visitorsPerDay: ReadonlyMap<string, number>,
): void {
  for (const bucket of series.buckets) {
    bucket.uniqueVisitors = visitorsPerDay.get(bucket.start.slice(0, 10)) ?? 0;
  }
}
