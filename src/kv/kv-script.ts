/** An argument of a script: Redis hands every one to Lua as a string. */
export type ScriptArg = string | number;

/**
 * A Lua script and its TypeScript twin, defined beside the domain arithmetic they both
 * apply (the sliding log in rate-limit, click admission in account). Redis runs `lua`
 * atomically; the in-process store runs `runInMemory` synchronously, which is just as
 * atomic. Both take the same keys and arguments and must give the same reply, which the
 * store contract spec checks.
 */
export interface KvScript<Reply> {
  /** Unique per script: the Redis store defines one command per name. */
  readonly name: string;
  readonly lua: string;
  /** The twin. Arguments arrive as given, so read them as Lua does (`Number`, `String`). */
  runInMemory(data: ScriptData, keys: readonly string[], args: readonly ScriptArg[]): Reply;
}

/**
 * A twin's structure standing for a Redis string value that Redis builds itself (a
 * HyperLogLog: PFADD writes a string), so reading the key's bytes gives what Redis would hold.
 */
export interface RedisStringStructure {
  toRedisBytes(): Uint8Array;
}

/** What a twin may do to the in-process store's keys: the Redis calls its Lua makes. */
export interface ScriptData {
  /** GET: null when the key is missing or expired. */
  getString(key: string): string | null;
  /**
   * GET as bytes: a string's UTF-8, a RedisStringStructure's Redis value; null when the key is
   * missing, expired, or holds neither.
   */
  getBytes(key: string): Uint8Array | null;
  /** SET key value [PX ttlMs] [NX]: false when `onlyIfAbsent` found the key. */
  setString(
    key: string,
    value: string,
    options?: { ttlMs?: number; onlyIfAbsent?: boolean },
  ): boolean;
  /** INCR: a missing key counts from 0; the key keeps its expiry. */
  increment(key: string): number;
  /** PEXPIRE. */
  expireInMs(key: string, ttlMs: number): void;
  deleteKey(key: string): void;
  /**
   * A value a twin keeps in its own shape rather than a Redis type (the sliding log keeps a
   * sorted array where Lua keeps a sorted set), created when missing.
   */
  structureAt<T extends object>(key: string, create: () => T): T;
  /** XADD stream * c payload: the field the stream readers read. */
  appendToStream(stream: string, payload: string): string;
}
