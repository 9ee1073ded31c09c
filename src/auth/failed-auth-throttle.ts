import { Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { KvStore } from '../kv/kv-store';
import { clientAddressKey } from '../rate-limit/client-address-key';
import { hitSlidingWindows } from '../rate-limit/sliding-windows';
import {
  blockedUntilMs,
  FAILED_AUTH_WINDOW_MS,
  retryAfterSecondsOf,
  throttledMessage,
} from './failed-auth-policy';

// One hash tag per client keeps both of its keys in one Redis Cluster slot.
const failureLogKeyOf = (subject: string): string => `authfail:{${subject}}:log`;
const blockedUntilKeyOf = (subject: string): string => `authfail:{${subject}}:until`;

/**
 * Counts failed authentications per client (see failed-auth-policy.ts) in the shared
 * key-value store, so the limit holds across app nodes. Two keys per client:
 * - the failure log, a sliding log hit with the same store primitive and arithmetic as the
 *   per-key API limits;
 * - a block marker holding when the block ends, written when a failure fills the log. A
 *   sliding log cannot be read without hitting it, so the marker is what the check before the
 *   key lookup reads, in one GET.
 *
 * Fails open: while the store is unreachable, authentication goes on unthrottled (a Redis
 * outage must not become an authentication outage). The outage is logged when it starts and
 * when it ends, not on every request.
 */
export class FailedAuthThrottle {
  private readonly logger = new Logger(FailedAuthThrottle.name);
  private isStoreDown = false;

  constructor(
    private readonly store: KvStore,
    private readonly clock: Clock,
    /** Failed authentications allowed per client in any sliding minute. */
    private readonly limit: number,
  ) {}

  /**
   * Throws 429 RATE_LIMIT_EXCEEDED with Retry-After while the client is blocked. Call it before
   * the key is looked up: a blocked client costs no database read, and a valid key does not
   * get it through either (an attacker may hold one valid key alongside the guesses).
   */
  async assertNotBlocked(clientIp: string): Promise<void> {
    // The client as the edge windows count it: an IPv6 client by its /64, which it can rotate in.
    const subject = clientAddressKey(clientIp);
    const stored = await this.unlessStoreDown(() =>
      this.store.getString(blockedUntilKeyOf(subject)),
    );
    const blockedUntil = Number(stored ?? Number.NaN);
    const nowMs = this.clock.nowMs();
    // Compared with the app clock, not left to the marker's TTL, so the block ends exactly
    // when the failure that caused it leaves the window (and tests can move the clock).
    if (!Number.isFinite(blockedUntil) || blockedUntil <= nowMs) return;
    throw blockedError(this.limit, blockedUntil, nowMs);
  }

  /**
   * Counts one failed authentication of the client. Throws 429 when the failure could not be
   * counted because the window was already full (concurrent requests passed the check before
   * the block was written): the client is over the limit and hears so. A successful
   * authentication never clears the count, or one valid key would reset a guesser's budget.
   */
  async recordFailure(clientIp: string): Promise<void> {
    const subject = clientAddressKey(clientIp);
    const nowMs = this.clock.nowMs();
    const result = await this.unlessStoreDown(() =>
      hitSlidingWindows(
        this.store,
        [{ key: failureLogKeyOf(subject), limit: this.limit }],
        nowMs,
        FAILED_AUTH_WINDOW_MS,
      ),
    );
    if (result === null) return;
    const blockedUntil = blockedUntilMs(result.windows[0], this.limit, FAILED_AUTH_WINDOW_MS);
    if (blockedUntil === null) return;
    // The TTL only collects the marker; assertNotBlocked reads the time it holds.
    const ttlSeconds = retryAfterSecondsOf(blockedUntil, nowMs);
    await this.unlessStoreDown(() =>
      this.store.setString(blockedUntilKeyOf(subject), String(blockedUntil), ttlSeconds),
    );
    if (!result.allowed) throw blockedError(this.limit, blockedUntil, nowMs);
  }

  /** The operation's result, or null when the store failed (logged once per outage). */
  private async unlessStoreDown<T>(operation: () => Promise<T>): Promise<T | null> {
    try {
      const value = await operation();
      if (this.isStoreDown) {
        this.isStoreDown = false;
        this.logger.log('Key-value store reachable again: failed authentications are throttled');
      }
      return value;
    } catch (error) {
      if (!this.isStoreDown) {
        this.isStoreDown = true;
        this.logger.error(
          `Key-value store unavailable, failed authentications are not throttled until it is back: ${String(error)}`,
        );
      }
      return null;
    }
  }
}

function blockedError(limit: number, blockedUntil: number, nowMs: number): AppError {
  const retryAfterSeconds = retryAfterSecondsOf(blockedUntil, nowMs);
  return new AppError(
    ErrorCode.RATE_LIMIT_EXCEEDED,
    throttledMessage(limit, retryAfterSeconds),
    undefined,
    { 'Retry-After': String(retryAfterSeconds) },
  );
}
