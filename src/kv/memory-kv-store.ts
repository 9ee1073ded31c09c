import { hitSlidingLogs, WindowState } from '../rate-limit/sliding-log';
import { KvStore, WindowSpec } from './kv-store';

const SWEEP_INTERVAL_MS = 60_000;

/**
 * The embedded default when REDIS_URL is unset: one process, state in memory, lost on
 * restart. Calls are synchronous underneath, so each one is atomic like a Lua script.
 */
export class MemoryKvStore extends KvStore {
  private readonly logs = new Map<string, { entries: number[]; expiresAtMs: number }>();
  private readonly counters = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    super();
    // Drop logs nobody touched for a whole window, so idle keys do not accumulate.
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
  }

  ping(): Promise<number> {
    return Promise.resolve(0);
  }

  hitSlidingWindows(
    windows: WindowSpec[],
    nowMs: number,
    windowMs: number,
  ): Promise<{ allowed: boolean; windows: WindowState[] }> {
    const logs = windows.map(({ key }) => {
      const log = this.logs.get(key) ?? { entries: [], expiresAtMs: 0 };
      log.expiresAtMs = nowMs + windowMs;
      this.logs.set(key, log);
      return log.entries;
    });
    return Promise.resolve(
      hitSlidingLogs(
        logs,
        windows.map((window) => window.limit),
        nowMs,
        windowMs,
      ),
    );
  }

  getCounter(key: string): Promise<number | null> {
    return Promise.resolve(this.counters.get(key) ?? null);
  }

  close(): Promise<void> {
    clearInterval(this.sweeper);
    return Promise.resolve();
  }

  private sweep(): void {
    const nowMs = this.now();
    for (const [key, log] of this.logs) {
      if (log.expiresAtMs <= nowMs) this.logs.delete(key);
    }
  }
}
