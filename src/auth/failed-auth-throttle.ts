import { Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { KvStore } from '../kv/kv-store';
import { clientAddressKey } from '../rate-limit/client-address-key';
import { hitSlidingWindows } from '../rate-limit/sliding-windows';
import { hashApiKey, parseApiKey } from './api-key-format';
import { findBearerKey } from './bearer-credentials';
import {
  decodeFailedAuthCheck,
  FAILED_AUTH_CHECK_SCRIPT,
  REMEMBER_KEY_SCRIPT,
} from './failed-auth.script';
import {
  blockedUntilMs,
  FAILED_AUTH_WINDOW_MS,
  isKnownKey,
  KNOWN_KEY_TTL_MS,
  MAX_KNOWN_KEYS_PER_CLIENT,
  retryAfterSecondsOf,
  shouldRememberKey,
  throttledMessage,
} from './failed-auth-policy';

// One hash tag per client keeps its keys in one Redis Cluster slot, so one script reads two.
const failureLogKeyOf = (subject: string): string => `authfail:{${subject}}:log`;
const blockedUntilKeyOf = (subject: string): string => `authfail:{${subject}}:until`;
const knownKeysKeyOf = (subject: string): string => `authfail:{${subject}}:known`;

/** One request's authentication as the throttle saw it before the key lookup. */
export interface AuthAttempt {
  /** The client as the limits count it (clientAddressKey). */
  subject: string;
  /** SHA-256 of the presented key when it is well formed, else null (it cannot authenticate). */
  keyHash: string | null;
  /** When that key last authenticated from this client; null when never or unknown. */
  keyLastSeenMs: number | null;
  /**
   * False when the store did not answer the check: nothing is written for the request either,
   * so a store outage costs one failed call per request, not two.
   */
  wasChecked: boolean;
}

/**
 * Counts failed authentications per client (see failed-auth-policy.ts) in the shared
 * key-value store, so the limit holds across app nodes. Three keys per client:
 * - the failure log, a sliding log hit with the same store primitive and arithmetic as the
 *   per-key API limits;
 * - a block marker holding when the block ends, written when a failure fills the log. A
 *   sliding log cannot be read without hitting it, so the marker is what the check before the
 *   key lookup reads;
 * - the keys known to the client: the SHA-256 hashes (never the keys) of those that
 *   authenticated from it in the last day, scored by when, at most MAX_KNOWN_KEYS_PER_CLIENT.
 * The check reads the marker and the presented key's entry in one script call: the same one
 * round trip as a plain GET of the marker.
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
   * Call before the key is looked up. Throws 429 RATE_LIMIT_EXCEEDED with Retry-After while
   * the client is blocked, unless the presented key authenticated from this client recently:
   * such a key goes on to the lookup (so revocation, plan and allowlist still apply). Any
   * other key costs no database read, and its answer says nothing about whether it is live.
   */
  async admit(clientIp: string, authorization: string | undefined): Promise<AuthAttempt> {
    // The client as the edge windows count it: an IPv6 client by its /64, which it can rotate in.
    const subject = clientAddressKey(clientIp);
    const keyHash = wellFormedKeyHashOf(authorization);
    const reply = await this.unlessStoreDown(() =>
      this.store.runScript(
        FAILED_AUTH_CHECK_SCRIPT,
        [blockedUntilKeyOf(subject), knownKeysKeyOf(subject)],
        [keyHash ?? ''],
      ),
    );
    if (reply === null) return { subject, keyHash, keyLastSeenMs: null, wasChecked: false };
    const { blockedUntilMs: blockedUntil, keyLastSeenMs } = decodeFailedAuthCheck(reply);
    const nowMs = this.clock.nowMs();
    const attempt = { subject, keyHash, keyLastSeenMs, wasChecked: true };
    // Compared with the app clock, not left to the marker's TTL, so the block ends exactly
    // when the failure that caused it leaves the window (and tests can move the clock).
    if (blockedUntil === null || blockedUntil <= nowMs) return attempt;
    if (isKnownKey(keyLastSeenMs, nowMs)) return attempt;
    throw blockedError(this.limit, blockedUntil, nowMs);
  }

  /**
   * Remembers the attempt's key as known to its client, when it is new there or its time is
   * an hour old: one write per key and client per hour. A success never clears the failure
   * count, or one valid key would reset a guesser's budget.
   */
  async recordSuccess(attempt: AuthAttempt): Promise<void> {
    const { keyHash, keyLastSeenMs, wasChecked } = attempt;
    const nowMs = this.clock.nowMs();
    if (!wasChecked || keyHash === null || !shouldRememberKey(keyLastSeenMs, nowMs)) return;
    await this.unlessStoreDown(() =>
      this.store.runScript(
        REMEMBER_KEY_SCRIPT,
        [knownKeysKeyOf(attempt.subject)],
        [nowMs, keyHash, KNOWN_KEY_TTL_MS, MAX_KNOWN_KEYS_PER_CLIENT],
      ),
    );
  }

  /**
   * Counts one failed authentication of the client. Throws 429 when the failure could not be
   * counted because the window was already full (concurrent requests passed the check before
   * the block was written, or a known key was revoked during a block): the client is over
   * the limit and hears so.
   */
  async recordFailure(attempt: AuthAttempt): Promise<void> {
    const { subject, wasChecked } = attempt;
    if (!wasChecked) return;
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
    // The TTL only collects the marker; admit reads the time it holds.
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

/**
 * The hash a known key is remembered by: the stored key hash's function, so nothing about the
 * key itself is kept. Null for what cannot be a key (no Bearer key, bad format or checksum).
 */
function wellFormedKeyHashOf(authorization: string | undefined): string | null {
  const key = findBearerKey(authorization);
  return key === null || parseApiKey(key) === null ? null : hashApiKey(key);
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
