import fc from 'fast-check';
import { setMaxListeners } from 'node:events';
import { CrashWatch, describeError } from './crash-watch';
import type { LinkLedger } from './fixture';
import { describeWire, FuzzRequest, toWire } from './model';
import { Outcome, Problem, problemsOf } from './oracle';
import { describeRaw, rawHeadBytes, RawSpec, rawRouteOf, rawTargetOf, renderRaw } from './raw';
import type { FuzzSettings } from './settings';
import type { FuzzStats } from './stats';
import { Exchange, HttpTarget, sendRawBytes, WireRequest } from './wire';

export interface FuzzDeps {
  http: HttpTarget;
  port: number;
  watch: CrashWatch;
  ledger: LinkLedger;
  stats: FuzzStats;
  settings: FuzzSettings;
}

/** One property: an arbitrary of batches and how to send a batch. */
export interface Campaign<T> {
  name: string;
  arbitrary: fc.Arbitrary<T>;
  /** Requests in one batch, to turn a request quota into a number of runs. */
  countRequests(batch: T): number;
  execute(batch: T, io: BatchIo): Promise<void>;
}

/**
 * Sends a batch's requests concurrently (the pool caps the connections) and keeps what came
 * back. Requests are aborted when the server would have crashed: the request that caused it
 * is never answered, and waiting for its timeout would only slow the shrinking down.
 */
class BatchIo {
  readonly outcomes: Outcome[] = [];
  private readonly pending = new Map<number, string>();
  private nextId = 0;

  constructor(
    private readonly deps: FuzzDeps,
    readonly signal: AbortSignal,
  ) {}

  async send(request: FuzzRequest): Promise<Exchange> {
    const wire = toWire(request);
    const shown = describeWire(wire);
    const exchange = await this.track(shown, () => this.deps.http.send(wire, this.signal));
    this.keep({
      route: request.route,
      method: wire.method,
      target: wire.path,
      shown,
      exchange,
      preflight: wire.method === 'OPTIONS' && 'access-control-request-method' in wire.headers,
      raw: false,
      headBytes: headBytesOf(wire),
    });
    if (exchange.kind === 'answer') this.acceptCreatedLinks(request, exchange);
    return exchange;
  }

  async sendRaw(spec: RawSpec): Promise<void> {
    const shown = describeRaw(spec);
    const exchange = await this.track(shown, () =>
      sendRawBytes(this.deps.port, renderRaw(spec), this.signal),
    );
    this.keep({
      route: rawRouteOf(spec),
      method: String(spec.method),
      target: rawTargetOf(spec),
      shown,
      exchange,
      preflight: false,
      raw: true,
      headBytes: rawHeadBytes(spec),
    });
  }

  /** The requests still waiting for an answer, as shown in failures. */
  unanswered(): string[] {
    return [...this.pending.values()];
  }

  private async track<R>(shown: string, send: () => Promise<R>): Promise<R> {
    const id = this.nextId++;
    this.pending.set(id, shown);
    try {
      return await send();
    } finally {
      this.pending.delete(id);
    }
  }

  private keep(outcome: Outcome): void {
    // Requests aborted because of a crash are reported with the crash, not one by one.
    if (this.signal.aborted && outcome.exchange.kind === 'no-answer') return;
    this.outcomes.push(outcome);
    this.deps.stats.recordOutcome(outcome);
  }

  /** Links a 2xx answer reports as created join the ledger of the key's creator. */
  private acceptCreatedLinks(request: FuzzRequest, exchange: Exchange & { kind: 'answer' }): void {
    if (exchange.status >= 300 || request.method !== 'POST' || request.auth.kind !== 'key') return;
    try {
      const data = (JSON.parse(exchange.body.toString('utf8')) as { data?: CreatedData }).data;
      const ids = [data?.link?.linkId, ...(data?.created ?? []).map((link) => link.linkId)];
      this.deps.ledger.accept(
        request.auth.key.creatorId,
        ids.filter((id): id is string => typeof id === 'string'),
      );
    } catch {
      // Not JSON: the oracle reports it.
    }
  }
}

/** The request line and headers as undici writes them (plus Host and Connection). */
function headBytesOf(wire: WireRequest): number {
  const headers = Object.entries(wire.headers).reduce(
    (sum, [name, value]) => sum + name.length + value.length + 4,
    0,
  );
  return wire.method.length + wire.path.length + 64 + headers;
}

interface CreatedData {
  link?: { linkId?: unknown };
  created?: Array<{ linkId?: unknown }>;
}

/** Runs one batch and checks it: every answer, the process, liveness, and the links table. */
async function runBatch<T>(deps: FuzzDeps, campaign: Campaign<T>, batch: T): Promise<Problem[]> {
  const controller = new AbortController();
  // Every request of the batch listens on this one signal.
  setMaxListeners(0, controller.signal);
  const io = new BatchIo(deps, controller.signal);
  const problems: Problem[] = [];
  // After a crash the other requests get a moment to be answered: what still waits then is
  // what the crash swallowed, and the batch is aborted.
  const crashes: unknown[] = [];
  let swallowed: string[] = [];
  let abortTimer: NodeJS.Timeout | undefined;
  const unsubscribe = deps.watch.subscribe((error) => {
    crashes.push(error);
    abortTimer ??= setTimeout(() => {
      swallowed = io.unanswered();
      controller.abort();
    }, CRASH_GRACE_MS);
  });
  try {
    await campaign.execute(batch, io);
  } finally {
    unsubscribe();
    clearTimeout(abortTimer);
  }
  for (const error of crashes) problems.push(crashProblem(error, swallowed));
  for (const outcome of io.outcomes) problems.push(...problemsOf(outcome));
  problems.push(...(await livenessProblems(deps)));
  // A request with no answer may have written a link no answer reported: the batch fails
  // anyway, and the ledger starts again from the table as it now is.
  const unanswered =
    controller.signal.aborted || io.outcomes.some((o) => o.exchange.kind === 'no-answer');
  if (unanswered) {
    // The server may still be finishing what the client gave up on.
    await new Promise((resolve) => setTimeout(resolve, CRASH_GRACE_MS));
    await deps.ledger.resync();
  } else {
    problems.push(...(await strayWriteProblems(deps, io.outcomes)));
  }
  return problems;
}

/** How long requests of a batch may still be answered after a crash before it is aborted. */
const CRASH_GRACE_MS = 1_000;

function crashProblem(error: unknown, swallowed: string[]): Problem {
  const code = (error as { code?: unknown } | null)?.code;
  const name = error instanceof Error ? error.name : typeof error;
  return {
    signature: `process crash: uncaught ${typeof code === 'string' ? code : name}`,
    message:
      `an uncaught exception or unhandled rejection (the server process would exit): ${describeError(error)}\n` +
      `    requests still unanswered ${CRASH_GRACE_MS} ms later (${swallowed.length}):\n      ` +
      (swallowed.slice(0, 5).join('\n      ') || '(none)'),
  };
}

/** A follow-up request must still be answered: the server is alive and its sockets work. */
async function livenessProblems(deps: FuzzDeps): Promise<Problem[]> {
  const health = await deps.http.send({ method: 'GET', path: '/v1/health', headers: {} });
  if (health.kind === 'answer') return [];
  return [
    {
      signature: 'server stopped answering',
      message: `GET /v1/health after the batch got no answer: ${health.reason}`,
    },
  ];
}

/** Rows in the links table that no 2xx answer reported: a refused request wrote something. */
async function strayWriteProblems(deps: FuzzDeps, outcomes: Outcome[]): Promise<Problem[]> {
  const strays = await deps.ledger.strayRows();
  if (strays.size === 0) return [];
  const refusedWrites = outcomes
    .filter(
      (o) =>
        o.method !== 'GET' &&
        o.method !== 'HEAD' &&
        o.exchange.kind === 'answer' &&
        o.exchange.status >= 400,
    )
    .map((o) => o.shown);
  return [
    {
      signature: 'refused request wrote a link',
      message:
        `links no 2xx answer reported: ${JSON.stringify(Object.fromEntries(strays))}\n` +
        `    refused writes in the batch:\n      ${refusedWrites.join('\n      ') || '(none)'}`,
    },
  ];
}

function formatProblems(problems: Problem[]): string {
  const distinct = new Map(problems.map((p) => [p.signature, p.message]));
  return [...distinct.entries()]
    .map(([signature, message]) => `- ${signature}\n    ${message}`)
    .join('\n');
}

/** What a campaign reports: a fast-check failure report to fail the test with, or null. */
export interface CampaignResult {
  report: string | null;
  /** Batches sent (runs after the quota was reached send nothing). */
  batches: number;
  sent: number;
  ms: number;
}

/**
 * Runs a campaign as one fast-check property, each run a batch of requests: `numRuns` from the
 * request quota, and an overall time limit (shrinking included) so it cannot run away.
 */
export async function runCampaign<T>(
  deps: FuzzDeps,
  campaign: Campaign<T>,
  quota: number,
  timeLimitMs: number,
): Promise<CampaignResult> {
  const { seed, path, survey } = deps.settings;
  const sample = fc.sample(campaign.arbitrary, { seed, numRuns: 50 });
  const meanBatch =
    sample.reduce((sum, batch) => sum + campaign.countRequests(batch), 0) / sample.length;
  // Runs enough for the quota with a margin (the sample's mean is an estimate); once the
  // quota is sent, the remaining runs return at once.
  const numRuns = Math.max(1, Math.ceil((1.5 * quota) / Math.max(1, meanBatch)));
  const sentBefore = deps.stats.sent;
  // fast-check's time limit abandons a run rather than stopping it: the batch in flight is
  // awaited before the campaign ends, so it never outlives its test (or the app).
  let inFlight: Promise<unknown> = Promise.resolve();
  let batches = 0;
  const property = fc.asyncProperty(campaign.arbitrary, async (batch) => {
    // Never while shrinking (or replaying a path): those runs must really run.
    const quotaSent = deps.stats.sent - sentBefore >= quota;
    if (quotaSent && !deps.stats.shrinking && path === undefined) return;
    batches++;
    const run = runBatch(deps, campaign, batch);
    inFlight = run.catch(() => undefined);
    const problems = await run;
    deps.stats.recordProblems(campaign.name, problems);
    if (problems.length === 0 || survey) return;
    // From here fast-check shrinks: its requests are variations of this failing batch.
    deps.stats.shrinking = true;
    throw new Error(formatProblems(problems));
  });
  const started = Date.now();
  deps.watch.start();
  let details: fc.RunDetails<unknown>;
  try {
    details = await fc.check(property, {
      seed,
      path,
      numRuns,
      plugins: [fc.interruptAfterTimeLimit(timeLimitMs)],
      // The error names the request and the broken rule: it belongs in the report itself.
      includeErrorInReport: true,
    });
  } finally {
    await inFlight;
    deps.watch.stop();
    deps.stats.shrinking = false;
  }
  const report = details.failed ? (fc.defaultReportMessage(details) ?? 'failed') : null;
  return {
    report,
    batches,
    sent: deps.stats.sent - sentBefore,
    ms: Date.now() - started,
  };
}
