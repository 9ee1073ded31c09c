import DataLoader from 'dataloader';

/**
 * Batches the calls of one event-loop turn: the keys asked for during a turn reach
 * `loadBatch` together at its end (setImmediate, the check phase right after the poll phase
 * that read the requests), at most `maxBatchSize` at a time, so a caller waits no longer than
 * the turn it asked in. `loadBatch` answers one value per key, in the keys' order; when it
 * fails, every key of that batch fails. DataLoader, with its cache off: the callers keep
 * their own caches, and a batch never outlives its turn.
 */
export function createTurnBatcher<K, V>(
  loadBatch: (keys: readonly K[]) => Promise<V[]>,
  maxBatchSize: number,
): DataLoader<K, V> {
  return new DataLoader<K, V>(loadBatch, {
    cache: false,
    batchScheduleFn: (send) => setImmediate(send),
    maxBatchSize,
  });
}
