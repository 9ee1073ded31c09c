import type { Outcome, Problem } from './oracle';

/**
 * What the run did: answers per route and status (a run that is mostly 429s or 401s is not
 * fuzzing the handlers, and this is where that shows), and every distinct failure.
 */
export class FuzzStats {
  private readonly byRoute = new Map<string, Map<string, number>>();
  private readonly failures = new Map<
    string,
    { campaign: string; count: number; message: string }
  >();
  /** Generated requests sent (shrinking included; liveness probes not). */
  sent = 0;
  /**
   * True while fast-check shrinks a failure: those requests repeat the failing one with small
   * changes, so they are counted apart and kept out of the distribution.
   */
  shrinking = false;
  sentWhileShrinking = 0;
  /** FUZZ_DEBUG=1: refusals tallied by route, status, code and message, to tune the generators. */
  private readonly refusals = new Map<string, number>();
  readonly perCampaign = new Map<string, { sent: number; ms: number; batches: number }>();

  recordOutcome(outcome: Outcome): void {
    this.sent++;
    if (this.shrinking) {
      this.sentWhileShrinking++;
      return;
    }
    if (process.env.FUZZ_DEBUG === '1') this.tallyRefusal(outcome);
    const statuses = this.byRoute.get(outcome.route) ?? new Map<string, number>();
    const key =
      outcome.exchange.kind === 'answer' ? String(outcome.exchange.status) : outcome.exchange.kind;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    this.byRoute.set(outcome.route, statuses);
  }

  recordProblems(campaign: string, problems: Problem[]): void {
    for (const problem of problems) {
      const seen = this.failures.get(problem.signature);
      if (seen === undefined)
        this.failures.set(problem.signature, { campaign, count: 1, message: problem.message });
      else seen.count++;
    }
  }

  private tallyRefusal(outcome: Outcome): void {
    const { exchange } = outcome;
    if (exchange.kind !== 'answer' || exchange.status < 400) return;
    let reason = '';
    try {
      const error = (
        JSON.parse(exchange.body.toString('utf8')) as {
          error?: { code?: string; message?: string };
        }
      ).error;
      reason = `${error?.code} ${error?.message?.slice(0, 90)}`;
    } catch {
      reason = '(not JSON)';
    }
    const key = `${outcome.route} ${exchange.status} ${reason}`;
    this.refusals.set(key, (this.refusals.get(key) ?? 0) + 1);
  }

  /** The most frequent refusals (FUZZ_DEBUG=1 only). */
  topRefusals(limit = 60): string {
    return [...this.refusals.entries()]
      .sort(([, a], [, b]) => b - a)
      .slice(0, limit)
      .map(([key, n]) => `  ${String(n).padStart(5)}  ${key}`)
      .join('\n');
  }

  get distinctFailures(): number {
    return this.failures.size;
  }

  /** A table: route, total, then `status×count` from the most frequent. */
  distribution(): string {
    const rows = [...this.byRoute.entries()].sort(([a], [b]) => a.localeCompare(b));
    const width = Math.max(...rows.map(([route]) => route.length), 5);
    const lines = rows.map(([route, statuses]) => {
      const total = [...statuses.values()].reduce((sum, n) => sum + n, 0);
      const parts = [...statuses.entries()]
        .sort(([, a], [, b]) => b - a)
        .map(([status, n]) => `${status}×${n}`)
        .join('  ');
      return `  ${route.padEnd(width)} ${String(total).padStart(6)}  ${parts}`;
    });
    return [`  ${'route'.padEnd(width)} ${'total'.padStart(6)}  statuses`, ...lines].join('\n');
  }

  /** Every distinct failure once, with how often it was seen and one example. */
  failureList(): string {
    if (this.failures.size === 0) return '  (none)';
    return [...this.failures.entries()]
      .map(
        ([signature, { campaign, count, message }], i) =>
          `  ${i + 1}. [${campaign}] ${signature} (seen ${count}×)\n    ${message}`,
      )
      .join('\n');
  }
}
