import { blockedUntilMs, retryAfterSecondsOf, throttledMessage } from './failed-auth-policy';

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
  it('should name the limit and the wait', () => {
    expect(throttledMessage(20, 37)).toBe(
      'Too many failed authentications from this address: the limit is 20 per minute; retry in 37 seconds.',
    );
  });
});
