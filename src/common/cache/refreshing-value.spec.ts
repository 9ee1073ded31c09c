import { Clock } from '../clock';
import { LogSink, ThrottledLogger } from '../logging/throttled-logger';
import { RefreshingValue } from './refreshing-value';

class ManualClock extends Clock {
  atMs = 1_000_000;

  nowMs(): number {
    return this.atMs;
  }
}

class RecordingSink implements LogSink {
  readonly lines: string[] = [];

  warn(message: string): void {
    this.lines.push(message);
  }

  error(message: string): void {
    this.lines.push(message);
  }
}

interface Versioned {
  version: number;
}

const REFRESH_AFTER_MS = 1_000;
const WARNING_INTERVAL_MS = 10_000;

/**
 * A value over a scripted store: each load answers the next of `answers` (a value, null, or an
 * Error to throw), and waits for `release` while `isHeld` is set.
 */
const setUp = (answers: (Versioned | null | Error)[]) => {
  const clock = new ManualClock();
  const sink = new RecordingSink();
  let loads = 0;
  let release: () => void = () => undefined;
  const gate = { isHeld: false };
  const load = async (): Promise<Versioned | null> => {
    const answer = answers[Math.min(loads++, answers.length - 1)];
    if (gate.isHeld) await new Promise<void>((resolve) => (release = resolve));
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const value = new RefreshingValue<Versioned>({
    load,
    refreshAfterMs: REFRESH_AFTER_MS,
    clock,
    warnings: new ThrottledLogger(sink, WARNING_INTERVAL_MS, clock),
    failureMessage: 'Loading the value failed',
    isNewer: (candidate, held) => candidate.version >= held.version,
  });
  return { clock, sink, value, gate, loadCount: () => loads, release: () => release() };
};

/** Lets a load started in the background settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe(RefreshingValue.name, () => {
  it('should answer null from peek before the first load, without starting one', () => {
    const { value, loadCount } = setUp([{ version: 1 }]);
    expect(value.peek()).toBeNull();
    expect(loadCount()).toBe(0);
  });

  it('should load once for concurrent first reads', async () => {
    const { value, gate, loadCount, release } = setUp([{ version: 1 }]);
    gate.isHeld = true;
    const reads = [value.get(), value.get(), value.refresh()];
    await settle();
    release();
    await expect(Promise.all(reads)).resolves.toEqual([
      { version: 1 },
      { version: 1 },
      { version: 1 },
    ]);
    expect(loadCount()).toBe(1);
  });

  it('should serve the held value at once and reload it in the background only when due', async () => {
    const { clock, value, loadCount } = setUp([{ version: 1 }, { version: 2 }]);
    await value.get();
    clock.atMs += REFRESH_AFTER_MS - 1;
    expect(value.peek()).toEqual({ version: 1 });
    expect(loadCount()).toBe(1);
    clock.atMs += 1;
    expect(value.peek()).toEqual({ version: 1 });
    expect(value.peek()).toEqual({ version: 1 });
    await settle();
    expect(loadCount()).toBe(2);
    expect(value.peek()).toEqual({ version: 2 });
  });

  it('should count the interval from the end of the last load', async () => {
    const { clock, value, gate, loadCount, release } = setUp([{ version: 1 }]);
    gate.isHeld = true;
    const first = value.get();
    await settle();
    clock.atMs += 5 * REFRESH_AFTER_MS;
    release();
    await first;
    expect(value.peek()).toEqual({ version: 1 });
    expect(loadCount()).toBe(1);
  });

  it('should reload when the clock moved backwards', async () => {
    const { clock, value, loadCount } = setUp([{ version: 1 }]);
    await value.get();
    clock.atMs -= 1;
    value.peek();
    await settle();
    expect(loadCount()).toBe(2);
  });

  it('should keep the last good value through failed reloads and warn once per interval', async () => {
    const { clock, sink, value, loadCount } = setUp([{ version: 1 }, new Error('db down')]);
    await value.get();
    for (let i = 0; i < 5; i++) {
      clock.atMs += REFRESH_AFTER_MS;
      expect(value.peek()).toEqual({ version: 1 });
      await settle();
    }
    expect(loadCount()).toBe(6);
    expect(sink.lines).toEqual(['Loading the value failed: Error: db down']);
    clock.atMs += WARNING_INTERVAL_MS;
    await expect(value.refresh()).resolves.toEqual({ version: 1 });
    expect(sink.lines).toEqual([
      'Loading the value failed: Error: db down',
      'Loading the value failed: Error: db down (4 more since the last report)',
    ]);
  });

  it('should warn at once about a failure that follows a good load', async () => {
    const { sink, value } = setUp([
      { version: 1 },
      new Error('first outage'),
      { version: 2 },
      new Error('second outage'),
    ]);
    await value.get();
    for (let i = 0; i < 3; i++) await value.refresh();
    expect(sink.lines).toEqual([
      'Loading the value failed: Error: first outage',
      'Loading the value failed: Error: second outage',
    ]);
    expect(value.peek()).toEqual({ version: 2 });
  });

  it('should reject a read while nothing is held, and load again on the next', async () => {
    const { value } = setUp([new Error('db down'), { version: 1 }]);
    await expect(value.get()).rejects.toThrow('db down');
    await expect(value.get()).resolves.toEqual({ version: 1 });
  });

  it('should keep the held value when a load finds none, and load each time while none is held', async () => {
    const { value, loadCount } = setUp([null, null, { version: 1 }, null]);
    await expect(value.get()).resolves.toBeNull();
    await expect(value.get()).resolves.toBeNull();
    await expect(value.get()).resolves.toEqual({ version: 1 });
    await expect(value.refresh()).resolves.toEqual({ version: 1 });
    expect(loadCount()).toBe(4);
  });

  it.each([
    ['a newer offered value', { version: 3 }, { version: 3 }],
    ['an older offered value', { version: 1 }, { version: 2 }],
  ])('should decide by isNewer for %s', async (_name, offered, expected) => {
    const { value } = setUp([{ version: 2 }]);
    await value.get();
    value.offer(offered);
    expect(value.peek()).toEqual(expected);
  });

  it('should not let a slow load undo a newer offered value', async () => {
    const { value, gate, release } = setUp([{ version: 1 }]);
    gate.isHeld = true;
    const load = value.refresh();
    value.offer({ version: 5 });
    await settle();
    release();
    await expect(load).resolves.toEqual({ version: 5 });
  });
});
