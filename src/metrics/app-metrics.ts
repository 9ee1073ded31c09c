import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { PlainHistogram } from './plain-histogram';

/** What the edge answered (EdgeAnswer's kinds) and with which status. */
const REDIRECT_ANSWERS = [
  ['redirect', 302],
  ['too_many_requests', 429],
  ['not_found', 404],
  ['gone', 410],
  ['database_unavailable', 503],
  ['internal_error', 500],
] as const;
export type RedirectAnswerKind = (typeof REDIRECT_ANSWERS)[number][0];

export type ProbeKind = 'deep_link' | 'health';

/**
 * The edge's caches and where each lookup found its answer: in process, in Redis, or in
 * PostgreSQL (a miss everywhere else; an unknown id read from PostgreSQL counts there too).
 */
const EDGE_CACHE_SOURCES = {
  link_record: ['memory', 'redis', 'database'],
  creator_profile: ['memory', 'database'],
} as const;
export type EdgeCache = keyof typeof EDGE_CACHE_SOURCES;
export type EdgeCacheSource<C extends EdgeCache> = (typeof EDGE_CACHE_SOURCES)[C][number];

/**
 * The process's Prometheus metrics (GET /metrics on METRICS_PORT). One registry per app, not
 * prom-client's global one, so several apps in one process (the e2e suites) never collide.
 * Clicks and refusals are counted in plain numbers and turned into samples when scraped:
 * counting a click is one increment, with no label lookup or allocation (prom-client's
 * labelled `inc` hashes its labels into a new string on every call).
 */
export class AppMetrics {
  readonly registry = new Registry();
  /** Clicks are counted in plain numbers, turned into samples only when scraped. */
  private readonly redirectCounts: Record<RedirectAnswerKind, number> = {
    redirect: 0,
    too_many_requests: 0,
    not_found: 0,
    gone: 0,
    database_unavailable: 0,
    internal_error: 0,
  };
  private readonly apiRateLimitRefusals = { count: 0 };
  /** From a click's arrival at either front to its answer written (seconds). */
  private readonly redirectLatency = new PlainHistogram(
    'linkpilot_redirect_duration_seconds',
    'Time from a request to /r/ reaching its front to its answer written, every outcome',
    [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  /** One admission script call, from sent to answered (seconds). */
  private readonly admissionRoundTrip = new PlainHistogram(
    'linkpilot_click_admission_round_trip_seconds',
    "Time from a click's admission script sent to Redis to its answer (event-loop waits included)",
    [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
  );
  /** Lookups per edge cache and source, plain numbers like the clicks. */
  private readonly edgeCacheLookups: Record<EdgeCache, Record<string, number>> = {
    link_record: { memory: 0, redis: 0, database: 0 },
    creator_profile: { memory: 0, database: 0 },
  };
  private readonly apiRequests = new Counter({
    name: 'linkpilot_http_requests_total',
    help: 'HTTP requests answered by the API (not the edge redirect) by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly apiDuration = new Histogram({
    name: 'linkpilot_http_request_duration_seconds',
    help: 'Time to answer an API request, by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private readonly probeResults = new Counter({
    name: 'linkpilot_probe_results_total',
    help: 'Link probe verdicts by probe (deep_link, health) and status',
    labelNames: ['probe', 'status'] as const,
    registers: [this.registry],
  });

  constructor(options: { collectProcessMetrics: boolean }) {
    const redirectCounts = this.redirectCounts;
    const apiRateLimitRefusals = this.apiRateLimitRefusals;
    const edgeCacheLookups = this.edgeCacheLookups;
    this.redirectLatency.registerIn(this.registry);
    this.admissionRoundTrip.registerIn(this.registry);
    this.countedAtScrape(
      'linkpilot_redirects_total',
      'Answers of GET /r/:linkId by outcome and HTTP status',
      ['outcome', 'status'],
      () =>
        REDIRECT_ANSWERS.map(([kind, status]) => [
          { outcome: kind, status: String(status) },
          redirectCounts[kind],
        ]),
    );
    this.countedAtScrape(
      'linkpilot_rate_limit_refusals_total',
      'Requests refused with 429: api (key rate limits and the failed-authentication brake) or edge (click windows)',
      ['scope'],
      () => [
        [{ scope: 'api' }, apiRateLimitRefusals.count],
        [{ scope: 'edge' }, redirectCounts.too_many_requests],
      ],
    );
    this.countedAtScrape(
      'linkpilot_edge_cache_lookups_total',
      "Lookups of the edge's link records and creator profiles by where the answer was found: memory (in process), redis or database",
      ['cache', 'source'],
      () =>
        Object.entries(EDGE_CACHE_SOURCES).flatMap(([cache, sources]) =>
          sources.map((source): [Record<string, string>, number] => [
            { cache, source },
            edgeCacheLookups[cache as EdgeCache][source],
          ]),
        ),
    );
    if (options.collectProcessMetrics) {
      collectDefaultMetrics({ register: this.registry, prefix: 'linkpilot_' });
    }
  }

  /**
   * A counter kept as plain numbers on the hot path and turned into samples only when
   * scraped: `samples` reads the numbers (labels and value per series) at each scrape.
   */
  private countedAtScrape(
    name: string,
    help: string,
    labelNames: string[],
    samples: () => [Record<string, string>, number][],
  ): void {
    new Counter({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, value] of samples()) this.inc(labels, value);
      },
    });
  }

  /**
   * On every answer of /r/: one increment and one bucket scan, nothing allocated.
   * `elapsedMs`: from the request reaching its front to its answer written.
   */
  countRedirect(kind: RedirectAnswerKind, elapsedMs: number): void {
    this.redirectCounts[kind]++;
    this.redirectLatency.observe(elapsedMs / 1000);
  }

  /** `startedAtMs`: `performance.now()` when the admission script was sent. */
  observeAdmissionRoundTrip(startedAtMs: number): void {
    this.admissionRoundTrip.observe((performance.now() - startedAtMs) / 1000);
  }

  /** On every lookup of an edge cache: one increment of a number, nothing allocated. */
  countEdgeCacheLookup<C extends EdgeCache>(cache: C, source: EdgeCacheSource<C>): void {
    this.edgeCacheLookups[cache][source]++;
  }

  /**
   * A counter with one label whose values the caller knows up front (every series is shown
   * from the start, at 0), kept as plain numbers: the caller increments the returned record's
   * entries on its hot path (one increment, no label hashing), and a scrape reads them.
   */
  plainCounter<V extends string>(
    name: string,
    help: string,
    labelName: string,
    labelValues: readonly V[],
  ): Record<V, number> {
    const counts = Object.fromEntries(labelValues.map((value) => [value, 0])) as Record<V, number>;
    this.countedAtScrape(name, help, [labelName], () =>
      labelValues.map((value) => [{ [labelName]: value }, counts[value]]),
    );
    return counts;
  }

  observeApiRequest(method: string, route: string, status: number, seconds: number): void {
    this.apiRequests.labels(method, route, String(status)).inc();
    this.apiDuration.labels(method, route).observe(seconds);
    if (status === 429) {
      this.apiRateLimitRefusals.count++;
    }
  }

  countProbeResult(probe: ProbeKind, status: string): void {
    this.probeResults.labels(probe, status).inc();
  }

  contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
