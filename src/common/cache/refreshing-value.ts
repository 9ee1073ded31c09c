import { Clock } from '../clock';
import { ThrottledLogger } from '../logging/throttled-logger';

export interface RefreshingValueOptions<T> {
  /** Reads the value; null when there is none (yet), which leaves a held value in place. */
  load: () => Promise<T | null>;
  /** A read that finds the held value last checked this long ago reloads it in the background. */
  refreshAfterMs: number;
  clock: Clock;
  /** Where failed loads are reported, at most once per its interval. */
  warnings: ThrottledLogger;
  /** The warning's text, also its throttling key: a constant such as 'Loading FX rates failed'. */
  failureMessage: string;
  /**
   * Whether a loaded or offered value replaces the held one (default: always). A value that
   * can also arrive another way (`offer`) uses it so that a slow load never undoes a newer one.
   */
  isNewer?: (candidate: T, held: T) => boolean;
}

/**
 * One value read by an async loader and kept in memory, so that readers never wait for the
 * store once it is warm. Refreshing is driven by reads: `peek` answers at once and, when the
 * value was last checked `refreshAfterMs` ago, starts a reload in the background (no timer, so
 * an idle process or a CLI run does not poll). Reloads in flight are shared, a failed one keeps
 * the last good value and is warned about through the throttled logger, not once per read.
 */
export class RefreshingValue<T> {
  private held: T | null = null;
  private checkedAtMs = Number.NEGATIVE_INFINITY;
  private loading: Promise<T | null> | null = null;
  private readonly isNewer: (candidate: T, held: T) => boolean;

  constructor(private readonly options: RefreshingValueOptions<T>) {
    this.isNewer = options.isNewer ?? (() => true);
  }

  /** The held value, never starting a reload, even a due one (for metrics scrapes). */
  peekHeld(): T | null {
    return this.held;
  }

  /**
   * The held value without waiting, null before the first load (which `peek` does not start:
   * a caller with nothing to serve awaits `get`). Allocates nothing when no reload is due.
   */
  peek(): T | null {
    const held = this.held;
    if (held !== null) this.refreshIfDue();
    return held;
  }

  /** The held value; while none is held, waits for a load and rejects if it fails. */
  get(): Promise<T | null> {
    if (this.held === null) return this.refresh();
    this.refreshIfDue();
    return Promise.resolve(this.held);
  }

  /**
   * Loads now, or joins the load under way. Resolves to the value held afterwards: a failure is
   * warned about and answers the last good value; it rejects only when there is none.
   */
  refresh(): Promise<T | null> {
    const { warnings, failureMessage } = this.options;
    this.loading ??= this.options
      .load()
      .then((loaded) => {
        if (loaded !== null) this.offer(loaded);
        warnings.reset(failureMessage);
        return this.held;
      })
      .catch((error: unknown) => {
        warnings.warn(failureMessage, failureMessage, error);
        if (this.held === null) throw error;
        return this.held;
      })
      .finally(() => {
        this.checkedAtMs = this.options.clock.nowMs();
        this.loading = null;
      });
    return this.loading;
  }

  /** A value learned another way (say, just written): held unless the held one is newer. */
  offer(candidate: T): void {
    if (this.held === null || this.isNewer(candidate, this.held)) this.held = candidate;
  }

  private refreshIfDue(): void {
    // Joining the reload under way would allocate a promise per read for nothing.
    if (this.loading !== null) return;
    const nowMs = this.options.clock.nowMs();
    // A clock moved backwards (tests, NTP) counts as due rather than freezing the value.
    if (nowMs - this.checkedAtMs >= this.options.refreshAfterMs || nowMs < this.checkedAtMs) {
      // With a value held, refresh() resolves even on failure; the catch only satisfies the type.
      this.refresh().catch(() => undefined);
    }
  }
}
