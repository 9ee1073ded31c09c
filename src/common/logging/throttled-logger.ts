import { Logger } from '@nestjs/common';
import { inspect } from 'node:util';
import { Clock, SystemClock } from '../clock';

/** Where the lines go: a Nest `Logger` fits, and so does a plain recorder in a test. */
export interface LogSink {
  warn(message: string): void;
  error(message: string): void;
}

interface KeyState {
  loggedAtMs: number;
  /** Occurrences left out since the last line, reported with the next one. */
  suppressed: number;
}

/**
 * A logger for failures that repeat (a store down fails every click, a reconnect every retry):
 * each key is logged at most once per interval, and the next line says how many were left out.
 * Keys name a kind of failure and are chosen by the caller from a small fixed set, never from
 * request data: each is remembered for the life of the logger. A suppressed call allocates
 * nothing (the text is only built when a line is written), so it can sit on the redirect path.
 */
export class ThrottledLogger {
  private readonly sink: LogSink;
  private readonly states = new Map<string, KeyState>();

  /** `logger` is a sink, or the context name of a new Nest `Logger`. */
  constructor(
    logger: LogSink | string,
    private readonly intervalMs: number,
    private readonly clock: Clock = new SystemClock(),
  ) {
    this.sink = typeof logger === 'string' ? new Logger(logger) : logger;
  }

  /** Warns `message: cause` unless `key` was logged within the interval; true when it logged. */
  warn(key: string, message: string, cause?: unknown): boolean {
    return this.write('warn', key, message, cause);
  }

  /** As `warn`, at the error level. */
  error(key: string, message: string, cause?: unknown): boolean {
    return this.write('error', key, message, cause);
  }

  /** The failure behind `key` is over: its next occurrence is logged at once. */
  reset(key: string): void {
    this.states.delete(key);
  }

  private write(level: keyof LogSink, key: string, message: string, cause: unknown): boolean {
    const nowMs = this.clock.nowMs();
    const state = this.states.get(key);
    // A clock moved backwards (tests, NTP) counts as due rather than silencing the key.
    if (
      state !== undefined &&
      nowMs >= state.loggedAtMs &&
      nowMs - state.loggedAtMs < this.intervalMs
    ) {
      state.suppressed++;
      return false;
    }
    const text = cause === undefined ? message : `${message}: ${describeCause(cause)}`;
    const suppressed = state?.suppressed ?? 0;
    this.sink[level](suppressed > 0 ? `${text} (${suppressed} more since the last report)` : text);
    if (state === undefined) this.states.set(key, { loggedAtMs: nowMs, suppressed: 0 });
    else {
      state.loggedAtMs = nowMs;
      state.suppressed = 0;
    }
    return true;
  }
}

/** An Error as `Name: message` (what String gives), a string as is, anything else inspected. */
function describeCause(cause: unknown): string {
  if (cause instanceof Error) return String(cause);
  return typeof cause === 'string' ? cause : inspect(cause);
}
