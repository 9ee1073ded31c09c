import { Logger } from '@nestjs/common';
import fc from 'fast-check';
import { Clock } from '../clock';
import { LogSink, ThrottledLogger } from './throttled-logger';

class ManualClock extends Clock {
  constructor(public atMs = 1_000_000) {
    super();
  }

  nowMs(): number {
    return this.atMs;
  }
}

class RecordingSink implements LogSink {
  readonly lines: string[] = [];

  warn(message: string): void {
    this.lines.push(`warn ${message}`);
  }

  error(message: string): void {
    this.lines.push(`error ${message}`);
  }
}

const INTERVAL_MS = 10_000;

const setUp = () => {
  const clock = new ManualClock();
  const sink = new RecordingSink();
  return { clock, sink, logger: new ThrottledLogger(sink, INTERVAL_MS, clock) };
};

describe(ThrottledLogger.name, () => {
  it.each([
    ['the first call', [0], [true]],
    ['a repeat inside the interval', [0, 9_999], [true, false]],
    ['a repeat once the interval is over', [0, 10_000], [true, true]],
    [
      'repeats inside, then one after',
      [0, 1, 5_000, 9_999, 10_000, 10_001],
      [true, false, false, false, true, false],
    ],
    ['a clock moved backwards', [0, -1], [true, true]],
  ])('should log %s as expected', (_name, offsetsMs, expected) => {
    const { clock, logger } = setUp();
    const start = clock.atMs;
    const logged = offsetsMs.map((offsetMs) => {
      clock.atMs = start + offsetMs;
      return logger.warn('store', 'Store down');
    });
    expect(logged).toEqual(expected);
  });

  it('should write the cause and the count left out when it logs again', () => {
    const { clock, sink, logger } = setUp();
    logger.warn('store', 'Store down', new Error('ECONNREFUSED'));
    logger.warn('store', 'Store down', new Error('ECONNREFUSED'));
    logger.warn('store', 'Store down', new Error('ECONNREFUSED'));
    clock.atMs += INTERVAL_MS;
    logger.error('store', 'Store down', 'timeout');
    expect(sink.lines).toEqual([
      'warn Store down: Error: ECONNREFUSED',
      'error Store down: timeout (2 more since the last report)',
    ]);
  });

  it('should throttle each key on its own', () => {
    const { sink, logger } = setUp();
    expect([
      logger.warn('a', 'A down'),
      logger.warn('b', 'B down'),
      logger.warn('a', 'A down'),
    ]).toEqual([true, true, false]);
    expect(sink.lines).toEqual(['warn A down', 'warn B down']);
  });

  it('should log at once after a reset, without the count of the failure that ended', () => {
    const { sink, logger } = setUp();
    logger.warn('store', 'Store down');
    logger.warn('store', 'Store down');
    logger.reset('store');
    expect(logger.warn('store', 'Store down again')).toBe(true);
    expect(sink.lines).toEqual(['warn Store down', 'warn Store down again']);
  });

  it('should write through a Nest Logger of the given context', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      new ThrottledLogger('Quota', INTERVAL_MS, new ManualClock()).warn('store', 'Store down');
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.contexts[0]).toMatchObject({ context: 'Quota' });
    } finally {
      warn.mockRestore();
    }
  });

  it('should space its lines by the interval and account for every call', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 15_000 }), { maxLength: 60 }), (steps) => {
        const { clock, sink, logger } = setUp();
        const loggedAtMs: number[] = [];
        let callsUpToLastLine = 0;
        steps.forEach((stepMs, index) => {
          clock.atMs += stepMs;
          if (logger.warn('store', 'Store down')) {
            loggedAtMs.push(clock.atMs);
            callsUpToLastLine = index + 1;
          }
        });
        for (let i = 1; i < loggedAtMs.length; i++) {
          expect(loggedAtMs[i] - loggedAtMs[i - 1]).toBeGreaterThanOrEqual(INTERVAL_MS);
        }
        // Every call up to the last line is that line or counted in it or an earlier one.
        const reported = sink.lines.reduce(
          (sum, line) => sum + 1 + Number(/\((\d+) more/.exec(line)?.[1] ?? 0),
          0,
        );
        expect(reported).toBe(callsUpToLastLine);
      }),
    );
  });
});
