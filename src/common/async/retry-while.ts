import { setTimeout as delay } from 'node:timers/promises';

export interface RetryWindow {
  /** Tries start within this many ms of the first; the last one runs to its own end. */
  withinMs: number;
  /** The pause before the second try; each later pause doubles it. */
  firstPauseMs: number;
}

/** Time as retryWhile reads and spends it; tests give one of their own. */
export interface PauseClock {
  nowMs(): number;
  pause(ms: number): Promise<unknown>;
}

const REAL_CLOCK: PauseClock = { nowMs: () => Date.now(), pause: (ms) => delay(ms) };

/**
 * `work`'s outcome, tried again while it fails with an error `isPassing` says will pass (a
 * Redis Cluster failing over, a connection being re-established) and the next try would
 * still start within `withinMs` of the first. Any other error, or the last passing one,
 * is the caller's. For reads only: a write tried twice may land twice.
 */
export async function retryWhile<T>(
  work: () => Promise<T>,
  isPassing: (error: unknown) => boolean,
  { withinMs, firstPauseMs }: RetryWindow,
  clock: PauseClock = REAL_CLOCK,
): Promise<T> {
  const startedAt = clock.nowMs();
  for (let pauseMs = firstPauseMs; ; pauseMs *= 2) {
    try {
      return await work();
    } catch (error) {
      if (!isPassing(error) || clock.nowMs() + pauseMs - startedAt > withinMs) throw error;
    }
    await clock.pause(pauseMs);
  }
}
