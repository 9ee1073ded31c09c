import type { RedisStringStructure, ScriptData } from './kv-script';
import type { MemoryStreams } from './memory-streams';

interface Entry {
  /** A string, a hash, or a structure a script twin keeps in its own shape. */
  value: string | Map<string, string> | object;
  /** null: no expiry, as a Redis key without a TTL. */
  expiresAtMs: number | null;
}

/**
 * The in-process store's keys with Redis's expiry rules: an expired key reads as missing,
 * and a periodic sweep frees the ones nobody reads again. Script twins act on it through
 * ScriptData, the store's own strings and hashes directly, so both see the same keys.
 */
export class MemoryKeyspace implements ScriptData {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number,
    private readonly streams: MemoryStreams,
  ) {}

  getString(key: string): string | null {
    const value = this.live(key)?.value;
    return typeof value === 'string' ? value : null;
  }

  getBytes(key: string): Uint8Array | null {
    const value = this.live(key)?.value;
    if (typeof value === 'string') return Buffer.from(value, 'utf8');
    return isRedisStringStructure(value) ? value.toRedisBytes() : null;
  }

  setString(
    key: string,
    value: string,
    options: { ttlMs?: number; onlyIfAbsent?: boolean } = {},
  ): boolean {
    if (options.onlyIfAbsent === true && this.live(key) !== undefined) return false;
    const expiresAtMs = options.ttlMs === undefined ? null : this.now() + options.ttlMs;
    this.entries.set(key, { value, expiresAtMs });
    return true;
  }

  increment(key: string): number {
    const entry = this.live(key);
    const next = Number(entry?.value ?? 0) + 1;
    if (!Number.isSafeInteger(next)) throw new Error('ERR value is not an integer or out of range');
    this.entries.set(key, { value: String(next), expiresAtMs: entry?.expiresAtMs ?? null });
    return next;
  }

  expireInMs(key: string, ttlMs: number): void {
    const entry = this.live(key);
    if (entry !== undefined) entry.expiresAtMs = this.now() + ttlMs;
  }

  deleteKey(key: string): void {
    this.entries.delete(key);
  }

  structureAt<T extends object>(key: string, create: () => T): T {
    const entry = this.live(key);
    if (entry !== undefined) return entry.value as T;
    const value = create();
    this.entries.set(key, { value, expiresAtMs: null });
    return value;
  }

  appendToStream(stream: string, payload: string): string {
    return this.streams.append(stream, payload);
  }

  getHash(key: string): Record<string, string> {
    const value = this.live(key)?.value;
    return value instanceof Map ? Object.fromEntries(value) : {};
  }

  setHash(key: string, fields: Record<string, string>, ttlMs: number): void {
    const existing = this.live(key)?.value;
    const hash = existing instanceof Map ? existing : new Map<string, string>();
    for (const [field, value] of Object.entries(fields)) hash.set(field, value);
    this.entries.set(key, { value: hash, expiresAtMs: this.now() + ttlMs });
  }

  /** Drops expired keys nobody read since they expired. */
  sweep(): void {
    const nowMs = this.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAtMs !== null && entry.expiresAtMs <= nowMs) this.entries.delete(key);
    }
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }
}

const isRedisStringStructure = (value: unknown): value is RedisStringStructure =>
  typeof (value as Partial<RedisStringStructure> | undefined)?.toRedisBytes === 'function';
