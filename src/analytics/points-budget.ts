/**
 * How many time-series points this process may build and send a second (token bucket). The
 * database side of a time series is cheap once it reads the rollups; what costs is the serving
 * process's CPU: building, serialising and writing every point of every series, a few
 * microseconds each, on the event loop that also answers the redirects. A call is admitted
 * while the bucket is not in debt and pays for its points once it knows how many there are, so
 * one large call may overdraw, and the calls after it wait until the debt is repaid: over any
 * span, the points served stay within the rate (plus one second's burst and one call).
 */
export class PointsBudget {
  private tokens: number;
  private lastRefillMs: number;

  constructor(
    /** Points per second, and the bucket's size (one second's worth). */
    private readonly pointsPerSecond: number,
    nowMs: number,
  ) {
    this.tokens = pointsPerSecond;
    this.lastRefillMs = nowMs;
  }

  /** Seconds until the debt is repaid (at least 1), or 0 when a call may start now. */
  waitSecondsAt(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens >= 0 ? 0 : Math.max(1, Math.ceil(-this.tokens / this.pointsPerSecond));
  }

  /** Pays for the points a call built. */
  charge(points: number, nowMs: number): void {
    this.refill(nowMs);
    this.tokens -= points;
  }

  private refill(nowMs: number): void {
    const elapsedMs = Math.max(0, nowMs - this.lastRefillMs);
    this.tokens = Math.min(
      this.pointsPerSecond,
      this.tokens + (elapsedMs * this.pointsPerSecond) / 1000,
    );
    this.lastRefillMs = Math.max(this.lastRefillMs, nowMs);
  }
}
