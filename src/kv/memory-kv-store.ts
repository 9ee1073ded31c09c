import type { KvScript, ScriptArg } from './kv-script';
import { KvStore, StreamEntry, StreamGroupInfo } from './kv-store';
import { MemoryKeyspace } from './memory-keyspace';
import { MemoryStreams } from './memory-streams';

const SWEEP_INTERVAL_MS = 60_000;

/**
 * The embedded default when REDIS_URL is unset: one process, state in memory, lost on
 * restart. Calls are synchronous underneath, so each one is atomic like a Lua script, and a
 * script runs as its TypeScript twin.
 */
export class MemoryKvStore extends KvStore {
  private readonly listeners = new Map<string, ((message: string) => void)[]>();
  private readonly streams: MemoryStreams;
  private readonly keyspace: MemoryKeyspace;
  private readonly sweeper: NodeJS.Timeout;

  constructor(now: () => number = Date.now) {
    super();
    this.streams = new MemoryStreams(now);
    this.keyspace = new MemoryKeyspace(now, this.streams);
    // Drop keys nobody touched since they expired, so idle keys do not accumulate.
    this.sweeper = setInterval(() => this.keyspace.sweep(), SWEEP_INTERVAL_MS).unref();
  }

  ping(): Promise<number> {
    return Promise.resolve(0);
  }

  getString(key: string): Promise<string | null> {
    return Promise.resolve(this.keyspace.getString(key));
  }

  getBytes(keys: readonly string[]): Promise<(Buffer | null)[]> {
    return Promise.resolve(
      keys.map((key) => {
        const bytes = this.keyspace.getBytes(key);
        return bytes === null ? null : Buffer.from(bytes);
      }),
    );
  }

  setString(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.keyspace.setString(key, value, { ttlMs: ttlSeconds * 1000 });
    return Promise.resolve();
  }

  deleteKeys(keys: string[]): Promise<void> {
    for (const key of keys) {
      this.keyspace.deleteKey(key);
      this.streams.delete(key);
    }
    return Promise.resolve();
  }

  getHash(key: string): Promise<Record<string, string>> {
    return Promise.resolve(this.keyspace.getHash(key));
  }

  setHash(key: string, fields: Record<string, string>, ttlSeconds: number): Promise<void> {
    this.keyspace.setHash(key, fields, ttlSeconds * 1000);
    return Promise.resolve();
  }

  runScript<Reply>(
    script: KvScript<Reply>,
    keys: readonly string[],
    args: readonly ScriptArg[],
  ): Promise<Reply> {
    try {
      return Promise.resolve(script.runInMemory(this.keyspace, keys, args));
    } catch (error) {
      // A failing script rejects, as a Lua error does.
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
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

  appendToStream(stream: string, payload: string): Promise<string> {
    return Promise.resolve(this.streams.append(stream, payload));
  }

  firstStreamEntryId(stream: string): Promise<string | null> {
    return Promise.resolve(this.streams.firstId(stream));
  }

  streamLength(stream: string): Promise<number> {
    return Promise.resolve(this.streams.length(stream));
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

  readOwnPending(
    stream: string,
    group: string,
    consumer: string,
    count: number,
  ): Promise<StreamEntry[]> {
    return Promise.resolve(this.streams.readOwnPending(stream, group, consumer, count));
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

  streamGroupInfo(stream: string, group: string): Promise<StreamGroupInfo> {
    return Promise.resolve(this.streams.groupInfo(stream, group));
  }

  close(): Promise<void> {
    clearInterval(this.sweeper);
    return Promise.resolve();
  }
}
