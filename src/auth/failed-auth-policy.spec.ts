import {
  blockedUntilMs,
  isKnownKey,
  KNOWN_KEY_REFRESH_MS,
  KNOWN_KEY_TTL_MS,
  retryAfterSecondsOf,
  shouldRememberKey,
  throttledMessage,
} from './failed-auth-policy';

const WINDOW_MS = 60_000;
const T0 = Date.UTC(2025, 0, 1);

describe(blockedUntilMs.name, () => {
  it('should not block while the failure log has room', () => {
    expect(blockedUntilMs({ count: 19, oldestMs: T0, blockingMs: null }, 20, WINDOW_MS)).toBe(null);
  });

  it('should block until the oldest failure leaves the window when a failure just filled it', () => {
    expect(blockedUntilMs({ count: 20, oldestMs: T0, blockingMs: null }, 20, WINDOW_MS)).toBe(
      T0 + WINDOW_MS,
    );
  });

  it('should block until the entry that frees a slot leaves when a failure was refused', () => {
    // The limit was lowered below the count: the entry the log names frees the slot, not the oldest.
    const state = { count: 25, oldestMs: T0, blockingMs: T0 + 5_000 };

    expect(blockedUntilMs(state, 20, WINDOW_MS)).toBe(T0 + 5_000 + WINDOW_MS);
  });
});

describe(retryAfterSecondsOf.name, () => {
  it.each([
    [T0 + 60_000, T0, 60],
    [T0 + 59_001, T0, 60],
    [T0 + 1, T0, 1],
    [T0, T0, 1],
  ])('should round %i - %i up to %i whole seconds (at least 1)', (until, nowMs, expected) => {
    expect(retryAfterSecondsOf(until, nowMs)).toBe(expected);
  });
});

describe(throttledMessage.name, () => {
  it('should name the limit, who is still admitted, and the wait', () => {
    expect(throttledMessage(20, 37)).toBe(
      'Too many failed authentications from this address: the limit is 20 per minute; ' +
        'until the block ends only keys already used from this address are accepted; ' +
        'retry in 37 seconds.',
    );
  });
});

describe(isKnownKey.name, () => {
  it.each<[string, number | null, boolean]>([
    ['never seen', null, false],
    ['seen just now', T0, true],
    ['seen a day ago less a millisecond', T0 - KNOWN_KEY_TTL_MS + 1, true],
    ['seen a day ago', T0 - KNOWN_KEY_TTL_MS, false],
    // Another node's clock may run ahead of this one.
    ['seen a little in the future', T0 + 500, true],
  ])('should say %s is %s', (_name, lastSeenMs, expected) => {
    expect(isKnownKey(lastSeenMs, T0)).toBe(expected);
  });
});

describe(shouldRememberKey.name, () => {
  it.each<[string, number | null, boolean]>([
    ['a key never seen', null, true],
    ['a key seen just now', T0, false],
    ['a key seen less than an hour ago', T0 - KNOWN_KEY_REFRESH_MS + 1, false],
    ['a key seen an hour ago', T0 - KNOWN_KEY_REFRESH_MS, true],
    ['a key seen in the future by a clock ahead', T0 + 500, false],
  ])('should say %s is to be written: %s', (_name, lastSeenMs, expected) => {
    expect(shouldRememberKey(lastSeenMs, T0)).toBe(expected);
  });

  it('should refresh a key before it could be forgotten', () => {
    expect(KNOWN_KEY_REFRESH_MS).toBeLessThan(KNOWN_KEY_TTL_MS);
  });
});
