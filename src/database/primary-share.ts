/**
 * How long work that no click waits for (an analytics slot's reads, the compaction of the link
 * rollup's deltas) rests after keeping the primary busy for `busyMs`, so that it takes at most
 * `sharePercent` of the time: busy / (busy + rest) is then exactly the share. One connection
 * is one backend, at most one core; with the rest, at most that share of one. The edge's reads
 * of links and profiles and the click writes need the primary's CPU as much as its
 * connections: on a machine where the database shares cores with the servers, a slot running
 * dashboards back to back took a whole core and held the redirects' tail up
 * (docs/benchmarks.md "The redirect beside analytics reads").
 */
export function restAfterPrimaryWork(busyMs: number, sharePercent: number): number {
  if (!(busyMs > 0) || sharePercent >= 100) return 0;
  return (busyMs * (100 - sharePercent)) / sharePercent;
}
