/**
 * How stale a read replica is, measured in time without trusting its clock or the primary's
 * activity: each check samples the primary's WAL position (`pg_current_wal_lsn()`),
 * and a replica that has replayed up to position R shows every commit the primary had made by
 * the latest sample whose position is at most R. Its lag is the time since that sample.
 *
 * The primary's write position, not its insert position: after a WAL segment switch an idle
 * primary's insert position points past the new page's header, where no replica ever
 * replays to, and a caught-up replica would look behind for as long as the primary stayed
 * idle. (A commit made with synchronous_commit = off is visible before it is written, so
 * such commits can be missed for up to wal_writer_delay, 200 ms by default.)
 *
 * Why not `now() - pg_last_xact_replay_timestamp()` on the replica: on a primary with no
 * writes, the last replayed commit grows old while the replica is fully caught up, so an idle
 * system would look minutes behind and be skipped for nothing. Positions do not age: an idle
 * primary's position stays where the replica already is, and the lag stays near zero.
 */

/** A WAL position (`16/B374D848`, two hexadecimal halves) as one number. */
export function parseLsn(text: string): bigint {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (match === null) throw new Error(`Not a WAL position: "${text}"`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

interface PrimarySample {
  atMs: number;
  lsn: bigint;
}

/**
 * The primary's WAL positions over the last `windowMs`, oldest first. A replica behind every
 * sample kept is at least `windowMs` stale: the window only needs to exceed the largest lag
 * that still matters (DATABASE_READ_MAX_LAG_S), past which nobody reads from it anyway.
 */
export class PrimaryPositions {
  private readonly samples: PrimarySample[] = [];

  constructor(private readonly windowMs: number) {}

  /** A position the primary had reached by `atMs` (sampled at or after it), in time order. */
  record(atMs: number, lsn: bigint): void {
    this.samples.push({ atMs, lsn });
    // Keep one sample at or before the window's start, so the window is covered whole.
    while (this.samples.length > 1 && this.samples[1].atMs <= atMs - this.windowMs) {
      this.samples.shift();
    }
  }

  /**
   * Milliseconds of the primary's history a replica replayed up to `replayLsn` may not show
   * at `nowMs`, or null when that is more than the samples cover (or nothing is sampled yet).
   */
  stalenessMs(replayLsn: bigint, nowMs: number): number | null {
    for (let i = this.samples.length - 1; i >= 0; i--) {
      const sample = this.samples[i];
      if (sample.lsn <= replayLsn) return Math.max(0, nowMs - sample.atMs);
    }
    return null;
  }

  /** Time since the oldest sample kept: the least a replica behind all of them lags. */
  coveredMs(nowMs: number): number | null {
    const oldest = this.samples[0];
    return oldest === undefined ? null : Math.max(0, nowMs - oldest.atMs);
  }
}
