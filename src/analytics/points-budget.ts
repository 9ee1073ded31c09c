/**
 * How many time-series points this process may build and send a second (token bucket). The
 * database side of a time series is cheap once it reads the rollups; what costs is the serving
 * process's CPU: building, serialising and writing every point of every series, a few
 * microseconds each, on the event loop that also answers the redirects.
 *
 * A call reserves, when it is admitted, the most points it can answer (before the read, the
 * number of series is not known), and gives back what it did not use once built. A call is
 * admitted while the bucket is not in debt. The bucket holds little (the service gives it a
 * tenth of a second's points), so calls are
 * admitted a few at a time, spaced by the rate: a crowd of callers cannot have dozens of
 * answers built back to back on the event loop, which would hold each redirect waiting
 * behind it for the whole burst. Over any span, the points served stay within the rate, plus
 * the bucket and one call.
 */
export class PointsBudget {
  private tokens: number;
  private lastRefillMs: number;

  constructor(
    /** Points per second. */
    private readonly pointsPerSecond: number,
    /** The most unused points the bucket keeps. */
    private readonly capacity: number,
    nowMs: number,
  ) {
    this.tokens = capacity;
    this.lastRefillMs = nowMs;
  }

  /**
   * Admits a call that may answer up to `points` points, reserving them: answers 0 when it is
   * admitted, else the seconds until the debt is repaid (at least 1), reserving nothing.
   */
  reserve(points: number, nowMs: number): number {
    this.refill(nowMs);
    if (this.tokens < 0) {
      return Math.max(1, Math.ceil(-this.tokens / this.pointsPerSecond));
    }
    this.tokens -= points;
    return 0;
  }

  /** Gives back reserved points a call did not answer (fewer series, or none at all). */
  release(points: number, nowMs: number): void {
    this.refill(nowMs);
    this.tokens = Math.min(this.capacity, this.tokens + points);
  }

  private refill(nowMs: number): void {
    const elapsedMs = Math.max(0, nowMs - this.lastRefillMs);
    this.tokens = Math.min(this.capacity, this.tokens + (elapsedMs * this.pointsPerSecond) / 1000);
    this.lastRefillMs = Math.max(this.lastRefillMs, nowMs);
  }
}
