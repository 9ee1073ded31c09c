import type { KvStore } from '../kv/kv-store';
import type { SlidingLogDecision } from './sliding-log';
import {
  decodeSlidingWindows,
  SLIDING_WINDOWS_SCRIPT,
  slidingWindowsArgs,
} from './sliding-window.script';

/** One window to hit: its key (hash-tagged, e.g. `rl:{keyId}:general`) and its limit. */
export interface WindowSpec {
  key: string;
  limit: number;
}

let sequence = 0;

/** A sorted-set member unique per request, even within one millisecond and across app nodes. */
function nextMember(nowMs: number): string {
  sequence = (sequence + 1) % 1e9;
  return `${nowMs}:${process.pid}:${sequence}:${Math.random()}`;
}

/**
 * Atomically admits a request in every window or in none (sliding log, see sliding-log.ts),
 * in one round trip. All keys of one call must share a hash slot.
 */
export async function hitSlidingWindows(
  store: KvStore,
  windows: readonly WindowSpec[],
  nowMs: number,
  windowMs: number,
): Promise<SlidingLogDecision> {
  const reply = await store.runScript(
    SLIDING_WINDOWS_SCRIPT,
    windows.map((window) => window.key),
    slidingWindowsArgs(
      windows.map((window) => window.limit),
      nowMs,
      windowMs,
      nextMember(nowMs),
    ),
  );
  return decodeSlidingWindows(reply, windows.length);
}
