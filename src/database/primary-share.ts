/**
 * How long an analytics slot rests after a read that kept the primary busy for `busyMs`, so
 * that the slot's reads take at most `sharePercent` of that time: busy / (busy + rest) is then
 * exactly the share. One slot is one backend, at most one core; with the rest, at most that
 * share of one. The edge's reads of links and profiles, the click writes and the rest of the
 * API need the primary's CPU as much as its connections: on a machine where the database
 * shares cores with the servers, a slot running dashboards back to back took a whole core and
 * held the redirects' tail up (docs/benchmarks.md "The redirect beside analytics reads").
 */
export function restAfterPrimaryRead(busyMs: number, sharePercent: number): number {
  if (!(busyMs > 0) || sharePercent >= 100) return 0;
  return (busyMs * (100 - sharePercent)) / sharePercent;
}
