import type { StreamEntry, StreamGroupInfo } from './kv-store';

interface PendingEntry {
  consumer: string;
  deliveredAtMs: number;
}

interface Group {
  /** Sequence of the last entry delivered to the group. */
  lastDelivered: number;
  pending: Map<string, PendingEntry>;
}

interface Stream {
  entries: Map<string, string>;
  groups: Map<string, Group>;
}

/**
 * Redis-stream semantics for the in-process store: consumer groups, pending entries until
 * acknowledged, and claiming entries left idle by a consumer that died.
 */
export class MemoryStreams {
  private readonly streams = new Map<string, Stream>();
  private sequence = 0;

  constructor(private readonly now: () => number) {}

  append(stream: string, payload: string): string {
    this.sequence += 1;
    const id = `${this.now()}-${this.sequence}`;
    this.streamOf(stream).entries.set(id, payload);
    return id;
  }

  /** DEL of a stream key: its entries and groups are gone. */
  delete(stream: string): void {
    this.streams.delete(stream);
  }

  /** The first entry's id (entries are kept in the order appended), null when none. */
  firstId(stream: string): string | null {
    const first = this.streams.get(stream)?.entries.keys().next();
    return first === undefined || first.done === true ? null : first.value;
  }

  /** Entries not yet deleted, as XLEN counts them. */
  length(stream: string): number {
    return this.streams.get(stream)?.entries.size ?? 0;
  }

  /** The stream's length and the group's pending entries and lag, as XINFO GROUPS tells them. */
  groupInfo(stream: string, group: string): StreamGroupInfo {
    const state = this.streams.get(stream);
    const groupState = state?.groups.get(group);
    if (state === undefined || groupState === undefined) {
      return { length: this.length(stream), group: null };
    }
    let lag = 0;
    for (const id of state.entries.keys()) {
      if (sequenceOf(id) > groupState.lastDelivered) lag++;
    }
    return { length: state.entries.size, group: { pending: groupState.pending.size, lag } };
  }

  ensureGroup(stream: string, group: string): void {
    const state = this.streamOf(stream);
    if (!state.groups.has(group)) state.groups.set(group, { lastDelivered: 0, pending: new Map() });
  }

  read(stream: string, group: string, consumer: string, count: number): StreamEntry[] {
    const state = this.streamOf(stream);
    const groupState = this.groupOf(state, group);
    const delivered: StreamEntry[] = [];
    for (const [id, payload] of state.entries) {
      if (delivered.length >= count) break;
      const sequence = sequenceOf(id);
      if (sequence <= groupState.lastDelivered) continue;
      groupState.lastDelivered = sequence;
      groupState.pending.set(id, { consumer, deliveredAtMs: this.now() });
      delivered.push({ id, payload });
    }
    return delivered;
  }

  /** This consumer's pending entries in id order (XREADGROUP from id 0), delivered again. */
  readOwnPending(stream: string, group: string, consumer: string, count: number): StreamEntry[] {
    const state = this.streamOf(stream);
    const groupState = this.groupOf(state, group);
    const delivered: StreamEntry[] = [];
    for (const [id, pending] of groupState.pending) {
      if (delivered.length >= count) break;
      const payload = state.entries.get(id);
      if (pending.consumer !== consumer || payload === undefined) continue;
      groupState.pending.set(id, { consumer, deliveredAtMs: this.now() });
      delivered.push({ id, payload });
    }
    return delivered;
  }

  claimIdle(
    stream: string,
    group: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): StreamEntry[] {
    const state = this.streamOf(stream);
    const groupState = this.groupOf(state, group);
    const claimed: StreamEntry[] = [];
    const nowMs = this.now();
    for (const [id, pending] of groupState.pending) {
      if (claimed.length >= count) break;
      if (nowMs - pending.deliveredAtMs < minIdleMs) continue;
      const payload = state.entries.get(id);
      if (payload === undefined) {
        groupState.pending.delete(id);
        continue;
      }
      groupState.pending.set(id, { consumer, deliveredAtMs: nowMs });
      claimed.push({ id, payload });
    }
    return claimed;
  }

  ackAndDelete(stream: string, group: string, ids: string[]): void {
    const state = this.streamOf(stream);
    const groupState = this.groupOf(state, group);
    for (const id of ids) {
      groupState.pending.delete(id);
      state.entries.delete(id);
    }
  }

  private streamOf(stream: string): Stream {
    let state = this.streams.get(stream);
    if (state === undefined) {
      state = { entries: new Map(), groups: new Map() };
      this.streams.set(stream, state);
    }
    return state;
  }

  private groupOf(state: Stream, group: string): Group {
    const groupState = state.groups.get(group);
    if (groupState === undefined) throw new Error(`NOGROUP: no consumer group ${group}`);
    return groupState;
  }
}

const sequenceOf = (id: string): number => Number(id.slice(id.indexOf('-') + 1));
