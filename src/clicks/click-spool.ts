import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Clock } from '../common/clock';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { InjectConfig } from '../config/config.module';
import { ClickSpoolConfig } from '../config/env';
import {
  encodeSpoolLine,
  segmentFileName,
  segmentWriterPid,
  SPOOL_SEGMENT_HEADER,
  SpooledClick,
} from './click-spool-format';

/** A full spool or a failing disk is reported at most this often, with the count left out. */
const WARNING_INTERVAL_MS = 10_000;
const HEADER_BYTES = Buffer.byteLength(SPOOL_SEGMENT_HEADER);

/** The clicks of one event-loop turn, written and fsynced together. */
interface Batch {
  lines: string[];
  bytes: number;
  /** Each click's visitor waits for this: true once on disk, false when it could not be. */
  settle: ((isOnDisk: boolean) => void)[];
}

interface OpenSegment {
  name: string;
  handle: fs.FileHandle;
}

/** What the spool holds now, for health. */
export interface ClickSpoolStatus {
  /** Clicks on disk waiting for Redis (this process's, and those it took over). */
  clicks: number;
  bytes: number;
  /** Clicks served but not recorded since this process started: the spool was full or failed. */
  droppedClicks: number;
}

/**
 * The edge's bounded, append-only spool of the clicks it counts while Redis is unreachable
 * (docs/operations.md "Durability"), under CLICK_SPOOL dir (DATA_DIR/click-spool), in segment files
 * (click-spool-format.ts). Writes are batched per event-loop turn and each batch is fsynced
 * once, never a click at a time; a click's visitor is answered after its batch is on disk, so
 * an acknowledged click survives a crash. While one batch is being synced the next gathers,
 * so under load a batch holds everything that arrived during the previous sync.
 *
 * At most `maxBytes` are held (segments not yet replayed included): past it the oldest are
 * kept, and each new click is served, counted in `droppedClicks` and logged (throttled), never
 * dropped silently. ClickSpoolReplayService empties it once Redis is back: it seals the
 * segment being written, replays the sealed ones and removes each once Redis acknowledged it.
 *
 * One writing process per segment: names carry the writer's pid, and at boot a process takes
 * over the segments of writers that are gone (a previous run, a crashed node on a shared disk).
 */
@Injectable()
export class ClickSpool implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ClickSpool.name);
  private readonly warnings: ThrottledLogger;
  private active: OpenSegment | null = null;
  private pending: Batch | null = null;
  /** Every file operation, in order: batches, sealing and closing never interleave. */
  private operations: Promise<void> = Promise.resolve();
  private sequence = 0;
  /** Bytes on disk and reserved by batches on their way there. */
  private bytes = 0;
  private clicks = 0;
  private droppedClicks = 0;

  constructor(
    @InjectConfig('clickSpool') private readonly config: ClickSpoolConfig,
    private readonly clock: Clock,
  ) {
    this.warnings = new ThrottledLogger(this.logger, WARNING_INTERVAL_MS, clock);
  }

  /** What is already on disk counts against the cap (segments a crash or restart left). */
  async onModuleInit(): Promise<void> {
    for (const name of await this.replayableSegments()) {
      const text = await fs.readFile(this.pathOf(name), 'utf8').catch(() => '');
      this.bytes += Buffer.byteLength(text);
      this.clicks += Math.max(0, text.split('\n').length - 2);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sealActiveSegment();
  }

  /**
   * Spools one counted click: resolves true once it is on disk, false when it was dropped (the
   * spool is full, or the disk failed), which is counted and logged.
   */
  append(click: SpooledClick): Promise<boolean> {
    const line = encodeSpoolLine(click);
    const bytes = Buffer.byteLength(line);
    if (this.bytes + bytes > this.config.maxBytes) {
      this.droppedClicks++;
      this.warnings.warn(
        'full',
        `Click spool full (${this.bytes} bytes of ${this.config.maxBytes}, CLICK_SPOOL_MAX_BYTES): a click was served but not recorded`,
      );
      return Promise.resolve(false);
    }
    this.bytes += bytes;
    let batch = this.pending;
    if (batch === null) {
      const created: Batch = { lines: [], bytes: 0, settle: [] };
      batch = created;
      this.pending = created;
      // The batch gathers until the end of this turn (and while earlier batches sync). `write`
      // reports its own failure to the batch's clicks, and never rejects.
      void this.enqueue(() => nextTurn().then(() => this.write(created)));
    }
    batch.lines.push(line);
    batch.bytes += bytes;
    return new Promise((resolve) => batch.settle.push(resolve));
  }

  /**
   * Closes the segment being written, once the batches already on their way are in it: later
   * clicks go to a new segment, and every earlier one is in a sealed segment replay may read.
   */
  sealActiveSegment(): Promise<void> {
    return this.enqueue(async () => {
      const segment = this.active;
      this.active = null;
      await segment?.handle.close();
    });
  }

  /**
   * Sealed segments this process may replay, oldest first: its own but the one being written,
   * and those of writers that are gone.
   */
  async replayableSegments(): Promise<string[]> {
    const names = await fs.readdir(this.config.dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    return names
      .filter((name) => {
        const pid = segmentWriterPid(name);
        if (pid === null || name === this.active?.name) return false;
        return pid === process.pid || !isProcessAlive(pid);
      })
      .sort();
  }

  readSegment(name: string): Promise<string> {
    return fs.readFile(this.pathOf(name), 'utf8');
  }

  /** A replayed segment: gone from disk and from the cap. */
  async removeSegment(name: string, clicks: number): Promise<void> {
    const { size } = await fs.stat(this.pathOf(name));
    await fs.unlink(this.pathOf(name));
    this.bytes = Math.max(0, this.bytes - size);
    this.clicks = Math.max(0, this.clicks - clicks);
  }

  status(): ClickSpoolStatus {
    return { clicks: this.clicks, bytes: this.bytes, droppedClicks: this.droppedClicks };
  }

  /** True while clicks wait on disk or on their way there. */
  hasClicks(): boolean {
    return this.clicks > 0 || this.pending !== null;
  }

  private enqueue(operation: () => Promise<void>): Promise<void> {
    const done = this.operations.then(operation);
    // One failed operation must not stop the ones after it (each reports its own failure).
    this.operations = done.catch(() => undefined);
    return done;
  }

  private async write(batch: Batch): Promise<void> {
    if (this.pending === batch) this.pending = null;
    try {
      const segment = this.active ?? (await this.openSegment());
      await segment.handle.write(batch.lines.join(''));
      await segment.handle.datasync();
      this.clicks += batch.lines.length;
      for (const settle of batch.settle) settle(true);
    } catch (error) {
      this.bytes -= batch.bytes;
      this.droppedClicks += batch.lines.length;
      this.warnings.error(
        'write',
        `Click spool write failed: ${batch.lines.length} clicks served but not recorded`,
        error,
      );
      // What reached the file may end in a torn line: start a new segment after it.
      const segment = this.active;
      this.active = null;
      await segment?.handle.close().catch(() => undefined);
      for (const settle of batch.settle) settle(false);
    }
  }

  /** A new segment with its header, its directory entry synced so the file survives a crash. */
  private async openSegment(): Promise<OpenSegment> {
    await fs.mkdir(this.config.dir, { recursive: true });
    const name = segmentFileName(this.clock.nowMs(), process.pid, this.sequence++);
    const handle = await fs.open(this.pathOf(name), 'a');
    try {
      await handle.write(SPOOL_SEGMENT_HEADER);
      await handle.datasync();
      const directory = await fs.open(this.config.dir, 'r');
      await directory.sync().finally(() => directory.close());
    } catch (error) {
      await handle.close();
      throw error;
    }
    this.bytes += HEADER_BYTES;
    this.active = { name, handle };
    return this.active;
  }

  private pathOf(name: string): string {
    return path.join(this.config.dir, name);
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Signal 0 checks a process exists: ESRCH means it is gone; EPERM, alive but not ours. */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
