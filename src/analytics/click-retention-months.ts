// Retention month arithmetic: which partitions of `clicks` may go, and from when the rollups
// may. Plain data in and out; the job (click-retention.service.ts) does the I/O.

/** A partition of `clicks` as the catalog describes it. */
export interface ClickPartition {
  /** As `regclass` prints it: quoted and schema-qualified where needed, ready for SQL. */
  name: string;
  /** The bound as `pg_get_expr` printed it: the partition is the same one while this is. */
  bound: string;
  isDefault: boolean;
  /** Inclusive lower bound; null for MINVALUE (and the DEFAULT partition). */
  from: Date | null;
  /** Exclusive upper bound; null for MAXVALUE (and the DEFAULT partition). */
  to: Date | null;
}

/** 00:00 UTC on the 1st of the month `months` months before the one `nowMs` falls in. */
export function monthStartBefore(nowMs: number, months: number): Date {
  const now = new Date(nowMs);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, 1));
}

/**
 * Partitions whose every click is older than `clicksBefore` (a month start at least one month
 * before the current one), oldest first. Never the DEFAULT partition, whose rows may be of any
 * time, nor one open towards the future (MAXVALUE).
 */
export function droppablePartitions(
  partitions: readonly ClickPartition[],
  clicksBefore: Date,
): ClickPartition[] {
  return partitions
    .filter(({ isDefault, to }) => !isDefault && to !== null && to <= clicksBefore)
    .sort((a, b) => (a.from?.getTime() ?? -Infinity) - (b.from?.getTime() ?? -Infinity));
}

/**
 * Where deleting rollups stops: at `rollupsBefore`, or earlier where raw clicks before it are
 * still stored (a partition refused or not yet dropped, old rows of the DEFAULT partition):
 * rollups of stored clicks stay, so the rebuild and the rollups never disagree. `rawStarts`
 * are the first instants of those raw clicks (null: a partition from MINVALUE, so nothing may
 * go). Answers a month start, or null when no rollup may be deleted.
 */
export function rollupPurgeBound(
  rollupsBefore: Date,
  rawStarts: readonly (Date | null)[],
): Date | null {
  let bound = rollupsBefore;
  for (const start of rawStarts) {
    if (start === null) return null;
    if (start < bound) bound = start;
  }
  // Whole months, so a day or hour rollup never keeps part of a day the other lost.
  return new Date(Date.UTC(bound.getUTCFullYear(), bound.getUTCMonth(), 1));
}
