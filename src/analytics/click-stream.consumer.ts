import { hostname } from 'node:os';
import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectConfig } from '../config/config.module';
import { ClicksConfig } from '../config/env';
import { CLICK_STREAMS } from './click-streams';
import { MemoryKvStore } from '../kv/memory-kv-store';
import { KvStore, StreamEntry } from '../kv/kv-store';
import { decodeClickRecord } from './click-record-codec';
import { ClickWritesRepository, isBadEntryError } from './click-writes.repository';

export const CLICK_CONSUMER_GROUP = 'click-writers';
/** Entries read per stream and pass. */
const BATCH_SIZE = 500;

/**
 * Moves click records from the Redis streams to PostgreSQL in batches (docs/design.md section 3):
 * at-least-once through a consumer group, exactly-once in the table because the record id is
 * part of the primary key (ON CONFLICT DO NOTHING). Entries a crashed worker left pending are
 * claimed again after `claimIdleMs`, so a restart loses nothing and counts nothing twice.
 * Entries this worker read in a pass that failed (PostgreSQL down, a Redis timeout) are read
 * back from its own pending list first, whole batches at a time: claiming alone takes back at
 * most a batch per stream every `claimIdleMs / 2`, which after an outage under load left
 * tens of thousands of clicks pending for minutes.
 */
@Injectable()
export class ClickStreamConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ClickStreamConsumer.name);
  readonly consumerName = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private isStopping = false;
  private hasGroups = false;
  private lastClaimMs = -Infinity;
  /** Streams where this worker holds entries it read but did not write (a pass failed). */
  private readonly streamsWithOwnPending = new Set<string>();
  /** Rows written by the background passes (the click worker reports it when it stops). */
  writtenInBackground = 0;

  constructor(
    @InjectConfig('clicks') private readonly config: ClicksConfig,
    private readonly store: KvStore,
    private readonly clicks: ClickWritesRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.consumerEnabled) return;
    await this.ensureGroups().catch((error: unknown) =>
      this.logger.warn(`Click streams not ready yet: ${String(error)}`),
    );
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.isStopping = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.running;
    // The in-process store's streams end with the process (Redis keeps its entries for the
    // next worker): what they still hold is written now, pass after pass until empty.
    if (this.config.consumerEnabled && this.store instanceof MemoryKvStore) {
      try {
        while ((await this.drainOnce()) > 0) {
          // another pass: the last one wrote something, more may be left
        }
      } catch (error) {
        this.logger.error(`Clicks not written before shutdown: ${String(error)}`);
      }
    }
  }

  async ensureGroups(): Promise<void> {
    for (const stream of CLICK_STREAMS)
      await this.store.ensureStreamGroup(stream, CLICK_CONSUMER_GROUP);
    this.hasGroups = true;
  }

  /**
   * One pass over every stream: abandoned entries first, then new ones, read stream by
   * stream and written as one INSERT (one commit per pass, not one per stream), then
   * acknowledged. Returns rows written.
   */
  async drainOnce(): Promise<number> {
    return this.writeNotingFailure(await this.read({ claim: true }).catch(this.passFailed));
  }

  /**
   * Passes back to back while some stream returned a full batch (a backlog, e.g. after load
   * or an outage), each next read from Redis overlapping PostgreSQL's insert of the current
   * batch. Safe because a read only takes entries never delivered before, and entries read
   * but not yet written stay pending until written or claimed again.
   */
  private async drainBacklog(): Promise<void> {
    const readNext = () => {
      const read = this.read({ claim: this.isClaimDue() }).catch(this.passFailed);
      // Read ahead: it may fail while the write before it is still under way, before anything
      // awaits it, and an unhandled rejection ends the process. It is awaited (and its error
      // thrown) in its turn.
      read.catch(() => undefined);
      return read;
    };
    let next: Promise<StreamBatch[]> | null = readNext();
    while (next !== null) {
      const batches: StreamBatch[] = await next;
      const hasMore = isBacklogged(batches) && !this.isStopping;
      // Reading back own pending entries while they are being written would read them twice.
      const canReadAhead = this.streamsWithOwnPending.size === 0;
      next = hasMore && canReadAhead ? readNext() : null;
      try {
        this.writtenInBackground += await this.writeNotingFailure(batches);
      } catch (error) {
        await next?.catch(() => undefined);
        throw error;
      }
      if (hasMore && !canReadAhead) next = readNext();
    }
  }

  /**
   * A failed read may have taken entries (a reply lost to a timeout) and a failed write has:
   * every stream is read back from this worker's own pending list before new entries.
   */
  private readonly passFailed = (error: unknown): never => {
    for (const stream of CLICK_STREAMS) this.streamsWithOwnPending.add(stream);
    throw error;
  };

  private writeNotingFailure(batches: StreamBatch[]): Promise<number> {
    return this.write(batches).catch(this.passFailed);
  }

  /**
   * The background loop claims twice per `claimIdleMs`, not on every pass: XAUTOCLAIM walks
   * the pending list, and under a backlog passes run back to back while the edge waits on the
   * same Redis.
   */
  private isClaimDue(): boolean {
    return performance.now() - this.lastClaimMs >= this.config.claimIdleMs / 2;
  }

  /** Reads new entries from every stream and, with `claim`, first takes over idle ones. */
  private async read({ claim }: { claim: boolean }): Promise<StreamBatch[]> {
    if (!this.hasGroups) await this.ensureGroups();
    if (claim) this.lastClaimMs = performance.now();
    return this.readAll(claim).catch((error: unknown) => {
      // Redis lost its data (a restart without AOF): the groups go with it; make them again.
      if (String(error).includes('NOGROUP')) this.hasGroups = false;
      throw error;
    });
  }

  /** One INSERT for the whole pass (one commit, not one per stream), then the acknowledgements. */
  private async write(batches: StreamBatch[]): Promise<number> {
    const pending = batches.filter((batch) => batch.entries.length > 0);
    let written = 0;
    if (pending.length > 0) {
      written = await this.insert(pending.flatMap((batch) => batch.entries));
      for (const batch of pending) await this.acknowledge(batch.stream, batch.entries);
    }
    // A stream whose own pending list was read to its end is written up: new entries next.
    for (const batch of batches) {
      if (batch.isOwnPending && !batch.isFull) this.streamsWithOwnPending.delete(batch.stream);
    }
    return written;
  }

  /**
   * Stream by stream, one command at a time: Redis runs the commands of one connection back
   * to back, so sixteen reads (or acknowledgements) of 500 entries sent at once would hold
   * every click admission behind them for milliseconds.
   */
  private async readAll(claim: boolean): Promise<StreamBatch[]> {
    const batches: StreamBatch[] = [];
    for (const stream of CLICK_STREAMS) {
      if (this.streamsWithOwnPending.has(stream)) {
        const own = await this.store.readOwnPending(
          stream,
          CLICK_CONSUMER_GROUP,
          this.consumerName,
          BATCH_SIZE,
        );
        batches.push({
          stream,
          entries: own,
          isFull: own.length === BATCH_SIZE,
          isOwnPending: true,
        });
        continue;
      }
      const claimed = claim
        ? await this.store.claimIdleEntries(
            stream,
            CLICK_CONSUMER_GROUP,
            this.consumerName,
            this.config.claimIdleMs,
            BATCH_SIZE,
          )
        : [];
      const fresh = await this.store.readStreamGroup(
        stream,
        CLICK_CONSUMER_GROUP,
        this.consumerName,
        BATCH_SIZE,
      );
      const isFull = claimed.length === BATCH_SIZE || fresh.length === BATCH_SIZE;
      batches.push({ stream, entries: [...claimed, ...fresh], isFull, isOwnPending: false });
    }
    return batches;
  }

  /** After the insert: a crash in between re-delivers the entries, and the insert skips them. */
  private acknowledge(stream: string, entries: StreamEntry[]): Promise<void> {
    return this.store.ackAndDelete(
      stream,
      CLICK_CONSUMER_GROUP,
      entries.map((entry) => entry.id),
    );
  }

  /**
   * Writes the entries; returns how many were click records. The entries go to PostgreSQL as
   * they came from the stream, joined into one JSON array, and one statement unpacks them
   * (INSERT_ENTRIES_SQL): the worker neither parses nor re-encodes a click, which made it
   * the largest cost of a click after the redirect itself. A record already stored is
   * skipped, never duplicated. The table's triggers add the rows actually inserted to the
   * click rollups in the same statement (docs/analytics.md).
   */
  async insert(entries: StreamEntry[]): Promise<number> {
    if (entries.length === 0) return 0;
    try {
      await this.insertPayloads(entries.map((entry) => entry.payload));
      return entries.length;
    } catch (error) {
      if (!isBadEntryError(error)) throw error;
      return this.insertOneByOne(entries);
    }
  }

  /**
   * Some entry is not a click record PostgreSQL accepts: each is checked and written alone,
   * and a bad one is logged and dropped (acknowledged), never retried forever.
   */
  private async insertOneByOne(entries: StreamEntry[]): Promise<number> {
    let written = 0;
    for (const entry of entries) {
      try {
        decodeClickRecord(entry.payload);
      } catch (error) {
        this.dropMalformed(entry, error);
        continue;
      }
      try {
        await this.insertPayloads([entry.payload]);
        written++;
      } catch (error) {
        if (!isBadEntryError(error)) throw error;
        this.dropMalformed(entry, error);
      }
    }
    return written;
  }

  private dropMalformed(entry: StreamEntry, error: unknown): void {
    this.logger.error(`Dropping malformed click entry ${entry.id}: ${String(error)}`);
  }

  private async insertPayloads(payloads: string[]): Promise<void> {
    await this.clicks.insertPayloads(payloads);
  }

  /**
   * Batches gather for a poll interval (a few large inserts a second, not a commit per
   * handful of clicks); a backlog is drained pass after pass without waiting.
   */
  private schedule(): void {
    if (this.isStopping) return;
    this.timer = setTimeout(() => {
      // While Redis is out there is nothing to read: no pass, and no failure logged each poll.
      const pass = this.store.isReachable() ? this.drainBacklog() : Promise.resolve();
      this.running = pass
        .catch((error: unknown) => this.logger.warn(`Click consumer pass failed: ${String(error)}`))
        .finally(() => this.schedule());
    }, this.config.pollIntervalMs);
    this.timer.unref();
  }
}

interface StreamBatch {
  stream: string;
  entries: StreamEntry[];
  /** A full batch: the stream may hold more. */
  isFull: boolean;
  /** Read back from this worker's own pending list, not new or claimed entries. */
  isOwnPending: boolean;
}

const isBacklogged = (batches: StreamBatch[]): boolean => batches.some((batch) => batch.isFull);
