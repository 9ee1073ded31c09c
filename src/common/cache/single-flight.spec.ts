import { SingleFlight } from './single-flight';

/** A promise the test settles by hand. */
const deferred = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe(SingleFlight.name, () => {
  it('should share one load between callers of the same key while it runs', async () => {
    const flights = new SingleFlight<string, number>();
    const load = deferred<number>();
    const start = jest.fn(() => load.promise);
    const first = flights.run('a', start);
    const second = flights.run('a', start);
    load.resolve(7);
    await expect(Promise.all([first, second])).resolves.toEqual([7, 7]);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('should load other keys on their own', async () => {
    const flights = new SingleFlight<string, string>();
    const start = jest.fn((key: string) => Promise.resolve(key));
    await expect(
      Promise.all([flights.run('a', () => start('a')), flights.run('b', () => start('b'))]),
    ).resolves.toEqual(['a', 'b']);
    expect(start).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['succeeded', (load: ReturnType<typeof deferred<number>>) => load.resolve(1)],
    ['failed', (load: ReturnType<typeof deferred<number>>) => load.reject(new Error('down'))],
  ])('should start a new load once the last one %s', async (_name, settle) => {
    const flights = new SingleFlight<string, number>();
    const load = deferred<number>();
    const first = flights.run('a', () => load.promise).catch(() => -1);
    settle(load);
    await first;
    const start = jest.fn(() => Promise.resolve(2));
    await expect(flights.run('a', start)).resolves.toBe(2);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('should hand every joined caller the failure', async () => {
    const flights = new SingleFlight<string, number>();
    const load = deferred<number>();
    const first = flights.run('a', () => load.promise);
    const second = flights.run('a', () => Promise.resolve(0));
    load.reject(new Error('down'));
    await expect(first).rejects.toThrow('down');
    await expect(second).rejects.toThrow('down');
  });

  it('should start anew after forget, telling the forgotten load it is no longer current', async () => {
    const flights = new SingleFlight<string, number>();
    const old = deferred<number>();
    const seen: boolean[] = [];
    const first = flights.run('a', async (isCurrent) => {
      const value = await old.promise;
      seen.push(isCurrent());
      return value;
    });
    flights.forget('a');
    const second = flights.run('a', async (isCurrent) => {
      await Promise.resolve();
      seen.push(isCurrent());
      return 2;
    });
    old.resolve(1);
    await expect(Promise.all([first, second])).resolves.toEqual([1, 2]);
    expect(seen.sort()).toEqual([false, true]);
    // The forgotten load settling later did not free the newer one's key early, nor keep its own.
    const third = jest.fn(() => Promise.resolve(3));
    await expect(flights.run('a', third)).resolves.toBe(3);
    expect(third).toHaveBeenCalledTimes(1);
  });
});
