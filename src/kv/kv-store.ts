import { WindowState } from '../rate-limit/sliding-log';

/** One window to hit: its key (hash-tagged, e.g. `rl:{keyId}:general`) and its limit. */
export interface WindowSpec {
  key: string;
  limit: number;
}

/**
 * What the service needs of its key-value store. Redis implements it with atomic Lua
 * scripts; the in-process store implements it for the embedded default with the same
 * arithmetic, so every caller behaves the same on both.
 */
export abstract class KvStore {
  /** Round-trip latency in milliseconds; rejects when the store is unreachable. */
  abstract ping(): Promise<number>;

  /**
   * Atomically admits a request in every window or in none (sliding log, see sliding-log.ts).
   * All keys of one call must share a hash slot.
   */
  abstract hitSlidingWindows(
    windows: WindowSpec[],
    nowMs: number,
    windowMs: number,
  ): Promise<{ allowed: boolean; windows: WindowState[] }>;

  /** Reads an integer counter; null when it does not exist. */
  abstract getCounter(key: string): Promise<number | null>;

  abstract close(): Promise<void>;
}
