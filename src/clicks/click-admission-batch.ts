import type DataLoader from 'dataloader';
import { createTurnBatcher } from '../common/async/turn-batcher';
import type { AdmissionVerdict, ClickAdmissionRequest } from './click-admission';

/** One click's answer: its verdict and the period's used count. */
export type AdmissionAnswer = [AdmissionVerdict, number];

/**
 * A turn's clicks leave as script calls of at most this many, all sent at once. Redis answers
 * each call as it finishes it, so the server answers the first calls' visitors while Redis
 * runs the later ones; one call for a whole turn (up to 64 clicks) left the server idle until
 * all of them were admitted. In `npm run bench` (3 rounds each, alternated): 64 per call 0.158–
 * 0.166 of the ceiling with the server's core 92–97% busy, 16 per call 0.190–0.192 at 98–100%,
 * 8 and 4 the same as 16 with a little more Redis CPU per click.
 */
export const MAX_CLICKS_PER_BATCH = 16;

/**
 * Gathers the click admissions of one event-loop turn into script calls per group, at most
 * MAX_CLICKS_PER_BATCH clicks each (one round trip for up to that many clicks instead of one
 * per click): under load a turn parses many requests, and each script call costs the redirect
 * a command object, a promise and a reply of its own, and costs Redis a script invocation.
 * Each group's clicks leave together at the end of the turn (createTurnBatcher), in their
 * order, and the script admits them one after the other exactly as separate calls would. Every click shares its batch's fate: a
 * failed call fails each of them (and each then takes the outage path on its own).
 *
 * Why not ioredis's pipelines (or its `enableAutoPipelining`): a Pipeline object keeps its
 * commands reachable long enough that nearly every command survives two young-generation
 * collections and is promoted, and collecting the promoted garbage made the redirect's longest
 * pauses (9 ms scavenges every 60 ms in `npm run bench`). Auto-pipelining also keeps one batch
 * in flight per connection, so a command waits for the previous batch's replies to be sent.
 */
export class ClickAdmissionBatches {
  private readonly batchers = new Map<string, DataLoader<ClickAdmissionRequest, AdmissionAnswer>>();

  constructor(
    /** Sends one batch (at most MAX_CLICKS_PER_BATCH clicks of one group): an answer per click. */
    private readonly send: (
      requests: readonly ClickAdmissionRequest[],
    ) => Promise<AdmissionAnswer[]>,
    /** Clicks of one group may share a call (on a Redis Cluster: the keys' slot). */
    private readonly groupOf: (request: ClickAdmissionRequest) => string,
  ) {}

  admit(request: ClickAdmissionRequest): Promise<AdmissionAnswer> {
    const group = this.groupOf(request);
    let batcher = this.batchers.get(group);
    if (batcher === undefined) {
      batcher = createTurnBatcher(this.send, MAX_CLICKS_PER_BATCH);
      this.batchers.set(group, batcher);
    }
    return batcher.load(request);
  }
}
