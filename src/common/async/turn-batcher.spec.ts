import { createTurnBatcher } from './turn-batcher';

/** A batcher that records each batch and answers each key doubled. */
function recordingBatcher(maxBatchSize = 10) {
  const calls: number[][] = [];
  const batcher = createTurnBatcher<number, number>((keys) => {
    calls.push([...keys]);
    return Promise.resolve(keys.map((key) => key * 2));
  }, maxBatchSize);
  return { calls, batcher };
}

describe(createTurnBatcher.name, () => {
  it('should load the keys of one turn in one call, giving each key its own value', async () => {
    const { calls, batcher } = recordingBatcher();
    const values = await Promise.all([1, 2, 3].map((key) => batcher.load(key)));
    expect(calls).toEqual([[1, 2, 3]]);
    expect(values).toEqual([2, 4, 6]);
    // The next turn's keys make the next call; a key asked twice is asked twice (no cache).
    await Promise.all([batcher.load(1), batcher.load(1)]);
    expect(calls).toEqual([
      [1, 2, 3],
      [1, 1],
    ]);
  });

  it('should call nothing before the turn ends', async () => {
    const { calls, batcher } = recordingBatcher();
    const pending = batcher.load(1);
    await Promise.resolve();
    expect(calls).toEqual([]);
    await pending;
    expect(calls).toEqual([[1]]);
  });

  it('should split a turn at the batch size, keeping the keys’ order', async () => {
    const { calls, batcher } = recordingBatcher(2);
    await Promise.all([1, 2, 3].map((key) => batcher.load(key)));
    expect(calls).toEqual([[1, 2], [3]]);
  });

  it('should fail every key of a failed call, whether it rejects or throws', async () => {
    const rejecting = createTurnBatcher<number, number>(
      () => Promise.reject(new Error('down')),
      10,
    );
    const throwing = createTurnBatcher<number, number>(() => {
      throw new Error('refused');
    }, 10);
    const results = await Promise.allSettled([
      rejecting.load(1),
      rejecting.load(2),
      throwing.load(3),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });
});
