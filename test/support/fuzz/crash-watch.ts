import * as vm from 'node:vm';

type CrashListener = (error: unknown) => void;

const EVENTS = ['uncaughtException', 'unhandledRejection'] as const;

/**
 * Catches what would end the server process: an exception or rejection nobody handles (such
 * as node:http refusing a Location header inside a promise callback). In production that is a
 * crash for every visitor; inside jest, jest-circus would record it against whichever test is
 * running and the request that caused it would simply never be answered. While a campaign
 * runs, this takes those events over so the campaign can fail the batch in flight at once,
 * with the error, and shrink to the request that caused it.
 *
 * Jest gives each test file a copy of `process` whose listeners never fire; the real one is
 * the global of the outer context, which `vm.runInThisContext` evaluates in.
 */
export class CrashWatch {
  private readonly realProcess = vm.runInThisContext('process') as NodeJS.EventEmitter;
  private readonly saved = new Map<string, Array<(...args: unknown[]) => void>>();
  private readonly listeners = new Set<CrashListener>();
  private readonly handle = (error: unknown): void => {
    for (const listener of this.listeners) listener(error);
  };

  start(): void {
    for (const event of EVENTS) {
      this.saved.set(
        event,
        this.realProcess.listeners(event) as Array<(...args: unknown[]) => void>,
      );
      this.realProcess.removeAllListeners(event);
      this.realProcess.on(event, this.handle);
    }
  }

  /** Gives the events back to jest. */
  stop(): void {
    for (const event of EVENTS) {
      this.realProcess.removeListener(event, this.handle);
      for (const listener of this.saved.get(event) ?? []) {
        this.realProcess.on(event, listener);
      }
    }
    this.saved.clear();
  }

  /** Calls `listener` on every crash until the returned function is called. */
  subscribe(listener: CrashListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const frames = (error.stack ?? '')
    .split('\n')
    .slice(1, 4)
    .map((line) => line.trim());
  return [
    `${typeof code === 'string' ? `${code} ` : ''}${error.name}: ${error.message}`,
    ...frames,
  ].join('\n    ');
}
