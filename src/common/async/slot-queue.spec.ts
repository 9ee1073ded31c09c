import fc from 'fast-check';
import { ReleaseSlot, SlotQueue, SlotTimers } from './slot-queue';

/** Timers on a clock the test moves: due callbacks run in order of their deadline. */
function manualTimers(): SlotTimers & { advance(ms: number): void } {
  let nowMs = 0;
  let nextId = 0;
  const pending = new Map<number, { dueMs: number; callback: () => void }>();
  return {
    set: (callback, ms) => {
      pending.set(nextId, { dueMs: nowMs + ms, callback });
      return nextId++;
    },
    clear: (handle) => pending.delete(handle as number),
    advance: (ms) => {
      nowMs += ms;
      const due = [...pending.entries()]
        .filter(([, timer]) => timer.dueMs <= nowMs)
        .sort(([a, x], [b, y]) => x.dueMs - y.dueMs || a - b);
      for (const [id, timer] of due) {
        pending.delete(id);
        timer.callback();
      }
    },
  };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

type Outcome = 'granted' | 'refused' | 'waiting';

describe(SlotQueue.name, () => {
  it('should grant up to size at once, then queue, then refuse after waitMs', async () => {
    const timers = manualTimers();
    const slots = new SlotQueue(2, 1_000, timers);
    const [first, second] = await Promise.all([slots.acquire(), slots.acquire()]);
    let third: ReleaseSlot | null | undefined;
    let fourth: ReleaseSlot | null | undefined;
    void slots.acquire().then((release) => (third = release));
    void slots.acquire().then((release) => (fourth = release));
    await settle();
    expect([slots.inUse, slots.waiting, third, fourth]).toEqual([2, 2, undefined, undefined]);

    first?.();
    first?.();
    await settle();
    expect(third).toEqual(expect.any(Function));
    expect([slots.inUse, slots.waiting, fourth]).toEqual([2, 1, undefined]);

    timers.advance(1_000);
    await settle();
    expect(fourth).toBeNull();
    second?.();
    third?.();
    expect([slots.inUse, slots.waiting]).toEqual([0, 0]);
  });

  it('should refuse a size below 1', () => {
    expect(() => new SlotQueue(0, 10)).toThrow('size must be >= 1');
  });

  it('should behave as a first-come first-served line of bounded wait, whatever the calls', async () => {
    const command = fc.oneof(
      fc.constant({ kind: 'acquire' as const }),
      fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 400 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.array(command, { maxLength: 60 }),
        async (size, waitMs, commands) => {
          const timers = manualTimers();
          const slots = new SlotQueue(size, waitMs, timers);
          const outcomes: Outcome[] = [];
          const releases = new Map<number, ReleaseSlot>();
          // The model: who holds a slot, who waits (in order) and until when.
          let nowMs = 0;
          const modelHolders = new Set<number>();
          let modelLine: { id: number; dueMs: number }[] = [];
          const modelOutcomes: Outcome[] = [];

          for (const step of commands) {
            if (step.kind === 'acquire') {
              const id = outcomes.length;
              outcomes.push('waiting');
              void slots.acquire().then((release) => {
                outcomes[id] = release === null ? 'refused' : 'granted';
                if (release !== null) releases.set(id, release);
              });
              if (modelHolders.size < size) {
                modelHolders.add(id);
                modelOutcomes.push('granted');
              } else {
                modelLine.push({ id, dueMs: nowMs + waitMs });
                modelOutcomes.push('waiting');
              }
            } else if (step.kind === 'release') {
              const holders = [...modelHolders];
              if (holders.length === 0) continue;
              const id = holders[step.pick % holders.length];
              releases.get(id)?.();
              modelHolders.delete(id);
              const next = modelLine.shift();
              if (next !== undefined) {
                modelHolders.add(next.id);
                modelOutcomes[next.id] = 'granted';
              }
            } else {
              nowMs += step.ms;
              timers.advance(step.ms);
              for (const waiter of modelLine.filter((w) => w.dueMs <= nowMs)) {
                modelOutcomes[waiter.id] = 'refused';
              }
              modelLine = modelLine.filter((w) => w.dueMs > nowMs);
            }
            await settle();
            expect(outcomes).toEqual(modelOutcomes);
            expect(slots.inUse).toBe(modelHolders.size);
            expect(slots.inUse).toBeLessThanOrEqual(size);
            expect(slots.waiting).toBe(modelLine.length);
          }
        },
      ),
    );
  });
});
