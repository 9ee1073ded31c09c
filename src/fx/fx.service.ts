import { Injectable, Logger } from '@nestjs/common';
import { withinDeadline } from '../common/async/within-deadline';
import { RefreshingValue } from '../common/cache/refreshing-value';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { InjectConfig } from '../config/config.module';
import { FxConfig } from '../config/env';
import { FxRateEntity } from './fx-rate.entity';
import { FxRatesRepository } from './fx-rates.repository';
import { FxUpstreamClient } from './fx-upstream.client';
import { toFxRatesResponse } from './fx.mapper';
import { FxRatesResponse } from './fx-rates.response';
import { classifyFxHealth, FxHealthCheck, FxRefreshFailure } from './math/classify-fx-health';
import { parseCurrencyApiPayload } from './math/currency-api-payload';
import { describeFxAge, FxAge, isFxStale } from './math/describe-fx-age';
import { ParsedRates, ParseFailure } from './math/fx-payload';
import { CurrencyCode, FxRates, FxSnapshot } from './math/fx-snapshot';
import { MergedRates, mergeFxRates } from './math/merge-fx-rates';
import { parseOpenErApiPayload } from './math/open-er-api-payload';

/** How often a reader looks for rates another process (a node, the CLI) has stored. */
const RELOAD_INTERVAL_MS = 1000;
/** While PostgreSQL is down, the failed lookups are logged at most this often, not once a second. */
const RELOAD_WARNING_INTERVAL_MS = 10_000;

type UpstreamSource = 'primary' | 'fallback';

const PARSERS: Record<UpstreamSource, (body: unknown) => ParsedRates | ParseFailure> = {
  primary: parseOpenErApiPayload,
  fallback: parseCurrencyApiPayload,
};

/** What a refresh stored (a type literal, so the CLI prints it as a plain record). */
export type FxRefreshResult = {
  source: UpstreamSource;
  validAt: string;
  /** Currencies the upstream lacked, kept from the previous rates. */
  carriedOver: CurrencyCode[];
};

/**
 * The rates in use and their daily refresh (docs/design.md section 6). Reads are served from
 * memory: the latest row is loaded once, replaced right after a refresh here, and looked up
 * again in the background at most once a second, so rates stored by another process show up
 * without a reader ever waiting on PostgreSQL once warm.
 */
@Injectable()
export class FxService {
  private readonly logger = new Logger(FxService.name);
  /** The latest row: loaded on first use, looked up again when a read finds it due. */
  private readonly latest: RefreshingValue<FxRateEntity>;
  private lastFailure: FxRefreshFailure | null = null;
  /** The last snapshot handed out and its row, reused while the row and its staleness hold. */
  private snapshotMemo: { row: FxRateEntity; snapshot: FxSnapshot } | null = null;

  constructor(
    @InjectConfig('fx') private readonly config: FxConfig,
    private readonly repository: FxRatesRepository,
    private readonly upstream: FxUpstreamClient,
    private readonly clock: Clock,
  ) {
    this.latest = new RefreshingValue({
      load: () => this.repository.findLatest(),
      refreshAfterMs: RELOAD_INTERVAL_MS,
      clock,
      warnings: new ThrottledLogger(this.logger, RELOAD_WARNING_INTERVAL_MS, clock),
      failureMessage: 'Loading FX rates failed',
      isNewer: isNewerRow,
    });
  }

  /** The rates routing uses, with isStale as of now. 503 FX_DATA_UNAVAILABLE when there are none. */
  async getLatestSnapshot(): Promise<FxSnapshot> {
    return this.snapshotFor(await this.currentRowOrThrow());
  }

  /**
   * Hours since the upstream timestamp of the rates held in memory, null before any were
   * loaded. Never reads the database (a metrics scrape must not).
   */
  peekHeldAgeHours(): number | null {
    const row = this.latest.peekHeld();
    return row === null ? null : (this.clock.nowMs() - row.validAt.getTime()) / 3_600_000;
  }

  /**
   * The rates routing uses, without waiting: null only before the first load. The redirect
   * calls this per click, so the same snapshot object is returned until the row changes or
   * turns stale (and memoised decisions keyed by it stay valid exactly that long).
   */
  peekSnapshot(): FxSnapshot | null {
    const row = this.latest.peek();
    return row === null ? null : this.snapshotFor(row);
  }

  private snapshotFor(row: FxRateEntity): FxSnapshot {
    const nowMs = this.clock.nowMs();
    const isStale = isFxStale(row.validAt.getTime(), nowMs, this.config.staleAfterHours);
    const memo = this.snapshotMemo;
    if (memo?.row === row && memo.snapshot.isStale === isStale) return memo.snapshot;
    const snapshot = this.snapshotOf(row, this.ageOf(row, nowMs));
    this.snapshotMemo = { row, snapshot };
    return snapshot;
  }

  /** GET /fx-rates: the snapshot with its age, limit and penalty, all as of one instant. */
  async getRates(): Promise<FxRatesResponse> {
    const row = await this.currentRowOrThrow();
    const age = this.ageOf(row, this.clock.nowMs());
    return toFxRatesResponse(this.snapshotOf(row, age), age, this.config.staleAfterHours);
  }

  /**
   * Fetches the primary, else the fallback, and stores the first usable answer. When both
   * fail nothing is written, the previous rates stay in use, the failure is kept for health,
   * and this throws 503 FX_DATA_UNAVAILABLE with each source's reason.
   */
  async refresh(): Promise<FxRefreshResult> {
    try {
      return await this.refreshFromUpstreams();
    } catch (error) {
      if (!(error instanceof AppError)) {
        // The store failed (the upstreams' own failures are AppErrors, already recorded).
        this.recordFailure(['database: could not read or store the rates']);
      }
      throw error;
    }
  }

  /** The `fx` entry of GET /health; answers from memory if the database is slower than timeoutMs. */
  async checkHealth(timeoutMs: number): Promise<FxHealthCheck> {
    // Late or failed, the rates held in memory answer.
    await withinDeadline(this.latest.get(), timeoutMs, 'The FX rates read').catch(() => null);
    const latest = this.latest.peek();
    return classifyFxHealth(
      latest && { validAt: latest.validAt.toISOString(), fetchedAtMs: latest.fetchedAt.getTime() },
      this.lastFailure,
      this.clock.nowMs(),
      this.config.staleAfterHours,
    );
  }

  private async refreshFromUpstreams(): Promise<FxRefreshResult> {
    const previous = await this.repository.findLatest();
    const reasons: Record<UpstreamSource, string[]> = { primary: [], fallback: [] };
    for (const source of ['primary', 'fallback'] as const) {
      const outcome = await this.fetchRates(source, previous);
      if (!outcome.ok) {
        reasons[source].push(outcome.reason);
        this.logger.warn(`FX ${source} source refused: ${outcome.reason}`);
        continue;
      }
      const row = await this.repository.append({
        validAt: new Date(outcome.validAt),
        fetchedAt: new Date(this.clock.nowMs()),
        source,
        rates: outcome.rates,
      });
      this.latest.offer(row);
      this.lastFailure = null;
      const carried =
        outcome.carriedOver.length > 0 ? `; carried over ${outcome.carriedOver.join(', ')}` : '';
      this.logger.log(
        `FX rates refreshed from the ${source} source, valid at ${outcome.validAt}${carried}`,
      );
      return { source, validAt: outcome.validAt, carriedOver: outcome.carriedOver };
    }
    this.recordFailure([
      `primary: ${reasons.primary.join('; ')}`,
      `fallback: ${reasons.fallback.join('; ')}`,
    ]);
    throw new AppError(
      ErrorCode.FX_DATA_UNAVAILABLE,
      'Neither FX source gave usable rates; the previous rates stay in use.',
      reasons,
    );
  }

  private recordFailure(reasons: string[]): void {
    this.lastFailure = { atMs: this.clock.nowMs(), reasons };
  }

  private ageOf(row: FxRateEntity, nowMs: number): FxAge {
    return describeFxAge(row.validAt.toISOString(), nowMs, this.config.staleAfterHours);
  }

  private snapshotOf(row: FxRateEntity, age: FxAge): FxSnapshot {
    return {
      base: 'USD',
      rates: row.rates,
      timestamp: row.validAt.toISOString(),
      source: row.source,
      isStale: age.isStale,
    };
  }

  private async fetchRates(
    source: UpstreamSource,
    previous: FxRateEntity | null,
  ): Promise<(MergedRates & { validAt: string }) | ParseFailure> {
    const url = source === 'primary' ? this.config.primaryUrl : this.config.fallbackUrl;
    const answer = await this.upstream.getJson(url);
    if (!answer.ok) return answer;
    const parsed = PARSERS[source](answer.body);
    if (!parsed.ok) return parsed;
    const merged = mergeFxRates(parsed.rates, previous?.rates ?? null);
    if (!merged.ok) return merged;
    return { ...merged, validAt: parsed.validAt };
  }

  /**
   * Units per USD of every supported currency as they were at `instant` (stored history; the
   * earliest rates for an instant before them): what an amount earned then is converted with.
   * 503 FX_DATA_UNAVAILABLE when no rates are stored at all.
   */
  async ratesAt(instant: Date): Promise<FxRates> {
    const row = await this.repository.findValidAt(instant);
    if (row === null) {
      throw new AppError(
        ErrorCode.FX_DATA_UNAVAILABLE,
        'No FX rates are available yet: seed the database or run `linkpilot fx refresh`.',
      );
    }
    return row.rates;
  }

  private async currentRowOrThrow(): Promise<FxRateEntity> {
    const row = await this.latest.get();
    if (row === null) {
      throw new AppError(
        ErrorCode.FX_DATA_UNAVAILABLE,
        'No FX rates are available yet: seed the database or run `linkpilot fx refresh`.',
      );
    }
    return row;
  }
}

/**
 * Whether a row replaces the cached one: the later fetched, on a tie the higher id (so the same
 * row read again replaces its old copy); a slow lookup never undoes a refresh.
 */
function isNewerRow(row: FxRateEntity, current: FxRateEntity): boolean {
  return (
    row.fetchedAt.getTime() > current.fetchedAt.getTime() ||
    (row.fetchedAt.getTime() === current.fetchedAt.getTime() &&
      BigInt(row.id) >= BigInt(current.id))
  );
}
