import type { KvStore, StreamEntry } from '../kv/kv-store';
import { ClickStreamConsumer } from './click-stream.consumer';
import type { ClickWritesRepository } from './click-writes.repository';

/** Resolves once `predicate` holds, checking every few milliseconds. */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe(ClickStreamConsumer.name, () => {
  it('should keep running when the read ahead of a backlog fails while a batch is written', async () => {
    // The first read finds a full batch (a backlog), so the next read starts beside the
    // insert; Redis times that read out before the insert ends.
    const fullBatch: StreamEntry[] = Array.from({ length: 500 }, (_, i) => ({
      id: `1-${i}`,
      payload: '{}',
    }));
    let reads = 0;
    const store = {
      isReachable: () => true,
      ensureStreamGroup: () => Promise.resolve(),
      claimIdleEntries: () => Promise.resolve([]),
      readOwnPending: () => Promise.resolve([]),
      readStreamGroup: () => {
        reads++;
        if (reads === 1) return Promise.resolve(fullBatch);
        if (reads <= 16) return Promise.resolve([]);
        return Promise.reject(new Error('Command timed out'));
      },
      ackAndDelete: () => Promise.resolve(),
    } as unknown as KvStore;
    let insertsDone = 0;
    const clicks = {
      insertPayloads: () =>
        new Promise((resolve) => setTimeout(resolve, 50)).then(() => {
          insertsDone++;
        }),
    } as unknown as ClickWritesRepository;
    const consumer = new ClickStreamConsumer(
      {
        consumerEnabled: true,
        pollIntervalMs: 10,
        claimIdleMs: 60_000,
        rollupCompactIntervalMs: 10_000,
      },
      store,
      clicks,
    );
    // An unhandled rejection fails the test (jest), as it ends the click worker's process.
    try {
      await consumer.onApplicationBootstrap();
      await until(() => insertsDone >= 1 && reads > 16);
      // Past the write: the failed read has been awaited (and the pass logged as failed).
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await consumer.beforeApplicationShutdown();
    }

    expect(insertsDone).toBeGreaterThanOrEqual(1);
  });
});
