import type { AdmissionVerdict, ClickAdmissionRequest } from './click-admission';

/** A batch's reply: each click's verdict and used count, flat, in the batch's order. */
export type BatchReply = readonly (AdmissionVerdict | number)[];

/** Where one click's answer will be: its batch's reply, at its place in the batch. */
export interface BatchTicket {
  reply: Promise<BatchReply>;
  index: number;
}

/** Past this many clicks a batch leaves at once: a script call stays short in Redis. */
export const MAX_CLICKS_PER_BATCH = 64;

interface OpenBatch {
  requests: ClickAdmissionRequest[];
  reply: Promise<BatchReply>;
  settle: (send: Promise<BatchReply>) => void;
}

/**
 * Gathers the click admissions of one event-loop turn into one script call per group (one
 * Redis round trip for the turn's clicks instead of one per click): under load a turn parses
 * many requests, and each script call costs the redirect a command object, a promise and a
 * reply of its own, and costs Redis a script invocation. The batch leaves at the end of the
 * turn (setImmediate, the check phase right after the poll phase that read the requests), as
 * the turn's corked socket write did before. Clicks keep their order inside a batch, and the
 * script admits them one after the other exactly as separate calls would. Every click shares
 * its batch's fate: a failed call fails each of them (and each then takes the outage path on
 * its own).
 *
 * Why not ioredis's pipelines (or its `enableAutoPipelining`): a Pipeline object keeps its
 * commands reachable long enough that nearly every command survives two young-generation
 * collections and is promoted, and collecting the promoted garbage made the redirect's longest
 * pauses (9 ms scavenges every 60 ms in `npm run bench`). Auto-pipelining also keeps one batch
 * in flight per connection, so a command waits for the previous batch's replies to be sent.
 */
export class ClickAdmissionBatches {
  private readonly open = new Map<string, OpenBatch>();
  private isFlushScheduled = false;

  constructor(
    /** Sends one batch (at most MAX_CLICKS_PER_BATCH clicks of one group). */
    private readonly send: (requests: ClickAdmissionRequest[]) => Promise<BatchReply>,
    /** Clicks of one group may share a call (on a Redis Cluster: the keys' slot). */
    private readonly groupOf: (request: ClickAdmissionRequest) => string,
  ) {}

  enqueue(request: ClickAdmissionRequest): BatchTicket {
    const group = this.groupOf(request);
    let batch = this.open.get(group);
    if (batch === undefined) {
      batch = newBatch();
      this.open.set(group, batch);
      this.scheduleFlush();
    }
    const index = batch.requests.push(request) - 1;
    if (batch.requests.length >= MAX_CLICKS_PER_BATCH) this.flushGroup(group, batch);
    return { reply: batch.reply, index };
  }

  private scheduleFlush(): void {
    if (this.isFlushScheduled) return;
    this.isFlushScheduled = true;
    setImmediate(() => {
      this.isFlushScheduled = false;
      for (const [group, batch] of this.open) this.flushGroup(group, batch);
    });
  }

  private flushGroup(group: string, batch: OpenBatch): void {
    this.open.delete(group);
    let sent: Promise<BatchReply>;
    try {
      sent = this.send(batch.requests);
    } catch (error) {
      sent = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    batch.settle(sent);
  }
}

function newBatch(): OpenBatch {
  let settle!: (send: Promise<BatchReply>) => void;
  const reply = new Promise<BatchReply>((resolve) => {
    // Resolving with the send's promise adopts its outcome, rejection included.
    settle = resolve;
  });
  return { requests: [], reply, settle };
}

/** One click's verdict and used count from its batch's reply. */
export function answerOf(reply: BatchReply, index: number): [AdmissionVerdict, number] {
  return [reply[2 * index] as AdmissionVerdict, reply[2 * index + 1] as number];
}
