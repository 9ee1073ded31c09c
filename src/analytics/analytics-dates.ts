// AnalyticsDate [S] arithmetic: whole UTC days, `YYYY-MM-DD`. Plain data in and out.

const ANALYTICS_DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** A summary covers at most this many days, counted inclusively (a leap year fits). */
export const MAX_SUMMARY_SPAN_DAYS = 366;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Half-open instant range: clicks with `fromInclusive <= clickedAt < toExclusive`. */
export interface InstantRange {
  fromInclusive?: Date;
  toExclusive?: Date;
}

/** An inclusive range of whole UTC days. */
export interface DayPeriod {
  periodStart: string;
  periodEnd: string;
}

/** Why a value is not an AnalyticsDate; null when it is one. */
export function describeAnalyticsDateProblem(value: unknown): string | null {
  if (typeof value !== 'string' || !ANALYTICS_DATE_PATTERN.test(value)) {
    return 'must be a date written YYYY-MM-DD';
  }
  // The pattern lets 2026-02-30 through; Date rolls it over to March, so a round trip tells.
  // Year 0000 exists in neither the Gregorian calendar nor PostgreSQL.
  const start = new Date(`${value}T00:00:00.000Z`);
  if (Number.isNaN(start.getTime()) || value.startsWith('0000') || utcDateOf(start) !== value) {
    return `must be a real calendar date; ${value} does not exist`;
  }
  return null;
}

/** The UTC calendar day of an instant, `YYYY-MM-DD`. */
export function utcDateOf(instant: Date | number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

/** 00:00:00.000 UTC of the day. */
export function startOfDay(date: string): Date {
  return new Date(`${date}T00:00:00.000Z`);
}

/** 00:00:00.000 UTC of the following day: the exclusive end of an inclusive day. */
export function startOfNextDay(date: string): Date {
  return new Date(startOfDay(date).getTime() + DAY_MS);
}

/** Inclusive `from`/`to` days as instants; either end may be open. */
export function instantRangeOf(from?: string, to?: string): InstantRange {
  return {
    ...(from !== undefined ? { fromInclusive: startOfDay(from) } : {}),
    ...(to !== undefined ? { toExclusive: startOfNextDay(to) } : {}),
  };
}

/** Days in the inclusive period (a period of one day counts 1). */
export function spanDaysOf(period: DayPeriod): number {
  return (
    (startOfNextDay(period.periodEnd).getTime() - startOfDay(period.periodStart).getTime()) / DAY_MS
  );
}

/**
 * The summary's period: by default the current UTC calendar month up to today. A missing
 * start is the first day of the end's month; a missing end is today. Not checked here.
 */
export function summaryPeriodOf(
  requested: { periodStart?: string; periodEnd?: string },
  nowMs: number,
): DayPeriod {
  const periodEnd = requested.periodEnd ?? utcDateOf(nowMs);
  const periodStart = requested.periodStart ?? `${periodEnd.slice(0, 7)}-01`;
  return { periodStart, periodEnd };
}
