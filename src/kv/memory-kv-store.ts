import { hitSlidingLogs, WindowState } from '../rate-limit/sliding-log';
import { admitClickInMemory, ClickAdmissionRequest, ClickAdmissionResult } from './click-admission';
import { KvStore, StreamEntry, WindowSpec } from './kv-store';
import { MemoryStreams } from './memory-streams';

const SWEEP_INTERVAL_MS = 60_000;

/**
 * The embedded default when REDIS_URL is unset: one process, state in memory, lost on
 * restart. Calls are synchronous underneath, so each one is atomic like a Lua script.
 */
export class MemoryKvStore extends KvStore {
  private readonly logs = new Map<string, { entries: number[]; expiresAtMs: number }>();
  private readonly counters = new Map<string, number>();
  private readonly buckets = new Map<
    string,
    { buckets: Map<number, number>; expiresAtMs: number }
  >();
  private readonly strings = new Map<string, { value: string; expiresAtMs: number }>();
  private readonly listeners = new Map<string, ((message: string) => void)[]>();
  private readonly streams: MemoryStreams;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    super();
    this.streams = new MemoryStreams(now);
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

  admitClick(request: ClickAdmissionRequest): Promise<ClickAdmissionResult> {
    const { keys } = request;
    const bucketsOf = (key: string): Map<number, number> => {
      const entry = this.buckets.get(key) ?? { buckets: new Map<number, number>(), expiresAtMs: 0 };
      entry.expiresAtMs = request.nowMs + 2 * request.windowMs;
      this.buckets.set(key, entry);
      return entry.buckets;
    };
    const state = {
      ipBuckets: bucketsOf(keys.ipWindow),
      creatorBuckets: bucketsOf(keys.creatorWindow),
      used: this.counters.get(keys.quota) ?? request.quotaSeed,
    };
    const result = admitClickInMemory(state, request);
    if (state.used !== null) this.counters.set(keys.quota, state.used);
    if (result.verdict === 'counted') this.streams.append(keys.stream, request.record);
    return Promise.resolve(result);
  }

  getString(key: string): Promise<string | null> {
    const entry = this.strings.get(key);
    if (entry === undefined || entry.expiresAtMs <= this.now()) return Promise.resolve(null);
    return Promise.resolve(entry.value);
  }

  setString(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.strings.set(key, { value, expiresAtMs: this.now() + ttlSeconds * 1000 });
    return Promise.resolve();
  }

  deleteKeys(keys: string[]): Promise<void> {
    for (const key of keys) {
      this.strings.delete(key);
      this.counters.delete(key);
    }
    return Promise.resolve();
  }

  /** One process: a broadcast reaches only this process's own subscribers. */
  publish(channel: string, message: string): Promise<void> {
    for (const listener of this.listeners.get(channel) ?? []) listener(message);
    return Promise.resolve();
  }

  subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), onMessage]);
    return Promise.resolve();
  }

  ensureStreamGroup(stream: string, group: string): Promise<void> {
    this.streams.ensureGroup(stream, group);
    return Promise.resolve();
  }

  readStreamGroup(
    stream: string,
    group: string,
    consumer: string,
    count: number,
  ): Promise<StreamEntry[]> {
    return Promise.resolve(this.streams.read(stream, group, consumer, count));
  }

  claimIdleEntries(
    stream: string,
    group: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<StreamEntry[]> {
    return Promise.resolve(this.streams.claimIdle(stream, group, consumer, minIdleMs, count));
  }

  ackAndDelete(stream: string, group: string, ids: string[]): Promise<void> {
    this.streams.ackAndDelete(stream, group, ids);
    return Promise.resolve();
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
    for (const [key, entry] of this.buckets) {
      if (entry.expiresAtMs <= nowMs) this.buckets.delete(key);
    }
    for (const [key, entry] of this.strings) {
      if (entry.expiresAtMs <= nowMs) this.strings.delete(key);
    }
  }
}
