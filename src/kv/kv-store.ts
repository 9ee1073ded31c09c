import { WindowState } from '../rate-limit/sliding-log';
import { ClickAdmissionRequest, ClickAdmissionResult } from './click-admission';

/** One window to hit: its key (hash-tagged, e.g. `rl:{keyId}:general`) and its limit. */
export interface WindowSpec {
  key: string;
  limit: number;
}

/** One entry of a click stream: its id and the serialised record. */
export interface StreamEntry {
  id: string;
  payload: string;
}

/**
 * What the service needs of its key-value store. Redis implements it with atomic Lua
 * scripts and streams; the in-process store implements it for the embedded default with the
 * same arithmetic, so every caller behaves the same on both.
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

  /** Admits and records one click in one round trip (see click-admission.ts). */
  abstract admitClick(request: ClickAdmissionRequest): Promise<ClickAdmissionResult>;

  /** Reads an integer counter; null when it does not exist. */
  abstract getCounter(key: string): Promise<number | null>;

  abstract getString(key: string): Promise<string | null>;
  abstract setString(key: string, value: string, ttlSeconds: number): Promise<void>;
  abstract deleteKeys(keys: string[]): Promise<void>;

  /** Fire-and-forget broadcast to every node (cache invalidation). */
  abstract publish(channel: string, message: string): Promise<void>;
  abstract subscribe(channel: string, onMessage: (message: string) => void): Promise<void>;

  /** Consumer groups over the click streams (at-least-once delivery). */
  abstract ensureStreamGroup(stream: string, group: string): Promise<void>;
  /** New entries for this consumer; they stay pending until acknowledged. */
  abstract readStreamGroup(
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
  /** Acknowledges and deletes processed entries, so the stream stays short. */
  abstract ackAndDelete(stream: string, group: string, ids: string[]): Promise<void>;

  abstract close(): Promise<void>;
}
