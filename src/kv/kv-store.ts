import type { KvScript, ScriptArg } from './kv-script';

/** One entry of a stream: its id and the serialised record. */
export interface StreamEntry {
  id: string;
  payload: string;
}

/** A stream and one of its consumer groups, as a metrics scrape reads them. */
export interface StreamGroupInfo {
  /** Entries in the stream (XLEN; 0 when it does not exist). */
  length: number;
  /** The group's state, or null when there is no such group (or no such stream). */
  group: {
    /** Entries delivered to the group and not yet acknowledged. */
    pending: number;
    /** Entries not yet delivered to the group; null when Redis cannot tell (before 7.0). */
    lag: number | null;
  } | null;
}

/** One connection to the store, as a metrics scrape reads it (the in-process store has none). */
export interface KvConnectionUsage {
  /** `command` (every command and script) or `subscriber` (pub/sub; made on first subscribe). */
  client: 'command' | 'subscriber';
  /** Connected and ready for commands (a cluster: its slots known and reachable). */
  isUp: boolean;
  /** Commands written and waiting for their replies (a cluster: summed over its nodes). */
  inFlight: number;
  /** Commands waiting for a connection (kept only where an offline queue is enabled). */
  offline: number;
}

/**
 * What the service needs of its key-value store, as transport only: strings, hashes,
 * scripts, streams and pub/sub. Redis implements it; the in-process store implements it for
 * the embedded default. What the keys mean (rate limits, quotas, click streams) lives with
 * the modules that own them, scripts included (see kv-script.ts).
 */
export abstract class KvStore {
  /** Round-trip latency in milliseconds; rejects when the store is unreachable. */
  abstract ping(): Promise<number>;

  /**
   * False from the moment the connection is known lost until it is back, so a caller with an
   * in-process fallback (the edge's admission and spool, the API rate limits) goes to it at
   * once. The in-process store is always reachable.
   */
  isReachable(): boolean {
    return true;
  }

  /**
   * `listener` runs each time the store is reachable again after an outage (the click spool
   * is replayed then). Never called for the in-process store, which has no outage.
   */
  onReachableAgain(listener: () => void): void {
    void listener;
  }

  abstract getString(key: string): Promise<string | null>;
  /**
   * The keys' values as bytes (MGET), null for a missing key: binary values such as a
   * HyperLogLog's, which a text read would mangle. On a Redis Cluster the keys must share a
   * hash slot.
   */
  abstract getBytes(keys: readonly string[]): Promise<(Buffer | null)[]>;
  abstract setString(key: string, value: string, ttlSeconds: number): Promise<void>;
  abstract deleteKeys(keys: string[]): Promise<void>;

  /** HGETALL: an empty record when the hash does not exist. */
  abstract getHash(key: string): Promise<Record<string, string>>;
  /** HSET of these fields, then the whole hash expires after `ttlSeconds`. */
  abstract setHash(key: string, fields: Record<string, string>, ttlSeconds: number): Promise<void>;

  /**
   * Runs a script atomically in one round trip. On a Redis Cluster all keys of one call must
   * share a hash slot (scriptsSpanSlots).
   */
  abstract runScript<Reply>(
    script: KvScript<Reply>,
    keys: readonly string[],
    args: readonly ScriptArg[],
  ): Promise<Reply>;

  /**
   * Whether one script call may take keys of different hash slots: yes on one Redis server
   * and in process, no on a Redis Cluster (where a call's keys must share a slot, or Redis
   * refuses it with CROSSSLOT).
   */
  scriptsSpanSlots(): boolean {
    return true;
  }

  /** Fire-and-forget broadcast to every node (cache invalidation). */
  abstract publish(channel: string, message: string): Promise<void>;
  abstract subscribe(channel: string, onMessage: (message: string) => void): Promise<void>;

  /** XADD; returns the entry's id. Scripts append in the same way (`appendToStream`). */
  abstract appendToStream(stream: string, payload: string): Promise<string>;
  /**
   * The id of the stream's first entry (XRANGE - + COUNT 1), null when it is empty. Streams
   * trimmed by ackAndDelete start at their oldest entry not yet acknowledged.
   */
  abstract firstStreamEntryId(stream: string): Promise<string | null>;
  /** XLEN: entries still in the stream (0 when it does not exist). */
  abstract streamLength(stream: string): Promise<number>;
  /** Consumer groups (at-least-once delivery); creates the stream when missing. */
  abstract ensureStreamGroup(stream: string, group: string): Promise<void>;
  /** New entries for this consumer; they stay pending until acknowledged. */
  abstract readStreamGroup(
    stream: string,
    group: string,
    consumer: string,
    count: number,
  ): Promise<StreamEntry[]>;
  /**
   * This consumer's own pending entries, oldest first (XREADGROUP from id 0): those it read but
   * did not acknowledge, such as a batch whose write failed, read back at once rather than
   * after `minIdleMs` of claiming.
   */
  abstract readOwnPending(
    stream: string,
    group: string,
    consumer: string,
    count: number,
  ): Promise<StreamEntry[]>;
  /** Entries pending longer than `minIdleMs` (their consumer died), taken over by this one. */
  abstract claimIdleEntries(
    stream: string,
    group: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<StreamEntry[]>;
  /**
   * Acknowledges processed entries and trims the stream of every entry the group has
   * acknowledged, so it stays short. For streams that one consumer group reads.
   */
  abstract ackAndDelete(stream: string, group: string, ids: string[]): Promise<void>;

  /** XLEN and the group's line of XINFO GROUPS, for the metrics (never on a hot path). */
  abstract streamGroupInfo(stream: string, group: string): Promise<StreamGroupInfo>;

  /** The store's connections and their queues, read synchronously (none in process). */
  connectionUsage(): KvConnectionUsage[] {
    return [];
  }

  abstract close(): Promise<void>;
}
