import fc from 'fast-check';
import { retryWhile } from './retry-while';

const passing = (error: unknown): boolean => error instanceof Error && error.message === 'passing';

/** A call failing its first `failures` tries with `error`, then answering `value`. */
function failingFirst(failures: number, error: Error, value = 'answer') {
  let tries = 0;
  return {
    tries: () => tries,
    work: (): Promise<string> => {
      tries++;
      return tries <= failures ? Promise.reject(error) : Promise.resolve(value);
    },
  };
}

describe(retryWhile.name, () => {
  it('should answer once a passing failure has passed within the window', async () => {
    const call = failingFirst(3, new Error('passing'));
    await expect(
      retryWhile(call.work, passing, { withinMs: 1_000, firstPauseMs: 1 }),
    ).resolves.toBe('answer');
    expect(call.tries()).toBe(4);
  });

  it('should give any other error at once, without trying again', async () => {
    const call = failingFirst(1, new Error('syntax error'));
    await expect(
      retryWhile(call.work, passing, { withinMs: 1_000, firstPauseMs: 1 }),
    ).rejects.toThrow('syntax error');
    expect(call.tries()).toBe(1);
  });

  it('should start every try within the window, and try while the next one would be', async () => {
    // A clock of its own: a try takes `tryMs`, a pause what it is asked.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 300 }),
        async (withinMs, firstPauseMs, tryMs) => {
          let now = 0;
          const starts: number[] = [];
          const pauses: number[] = [];
          const clock = {
            nowMs: () => now,
            pause: (ms: number) => {
              pauses.push(ms);
              now += ms;
              return Promise.resolve();
            },
          };
          const work = (): Promise<string> => {
            starts.push(now);
            now += tryMs;
            return Promise.reject(new Error('passing'));
          };
          await expect(
            retryWhile(work, passing, { withinMs, firstPauseMs }, clock),
          ).rejects.toThrow('passing');
          expect(starts.every((start) => start <= withinMs)).toBe(true);
          expect(pauses).toEqual(pauses.map((_, i) => firstPauseMs * 2 ** i));
          // Stopped only because the next try would have started after the window.
          const nextPauseMs = firstPauseMs * 2 ** pauses.length;
          expect(now + nextPauseMs).toBeGreaterThan(withinMs);
        },
      ),
    );
  });
});
