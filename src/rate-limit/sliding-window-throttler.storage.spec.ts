import type { Clock } from '../common/clock';
import type { KvScript, ScriptArg } from '../kv/kv-script';
import { MemoryKvStore } from '../kv/memory-kv-store';
import type { RateLimitVerdict } from './sliding-log';
import {
  SlidingWindowThrottlerStorage,
  ThrottlerStorageRecord,
  toThrottlerRecord,
} from './sliding-window-throttler.storage';

const WINDOW_MS = 60_000;
// 2025-01-01T00:00:00.000Z: a whole number of seconds.
const T0 = Date.UTC(2025, 0, 1);

/** A store that fails every script while `isDown`, and says when it is reachable again. */
class UnreachableStore extends MemoryKvStore {
  isDown = true;
  private readonly reachableAgain: (() => void)[] = [];

  override isReachable(): boolean {
    return !this.isDown;
  }

  override onReachableAgain(listener: () => void): void {
    this.reachableAgain.push(listener);
  }

  comeBack(): void {
    for (const listener of this.reachableAgain) listener();
  }

  override runScript<Reply>(
    script: KvScript<Reply>,
    keys: readonly string[],
    args: readonly ScriptArg[],
  ): Promise<Reply> {
    if (this.isDown) return Promise.reject(new Error('Connection is closed.'));
    return super.runScript(script, keys, args);
  }
}

function makeStorage() {
  let nowMs = T0;
  const clock: Clock = { nowMs: () => nowMs };
  const storage = new SlidingWindowThrottlerStorage(new MemoryKvStore(() => nowMs), clock);
  return {
    storage,
    at(ms: number) {
      nowMs = ms;
      return storage;
    },
  };
}

describe(toThrottlerRecord.name, () => {
  const verdict = (overrides: Partial<RateLimitVerdict>): RateLimitVerdict => ({
    allowed: true,
    limit: 60,
    remaining: 59,
    resetAtSeconds: T0 / 1000 + 60,
    retryAfterSeconds: 0,
    ...overrides,
  });

  it.each<[string, RateLimitVerdict, number, ThrottlerStorageRecord]>([
    [
      'the first request was admitted',
      verdict({}),
      T0,
      { totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 },
    ],
    [
      'the reset is a fraction of a second away (rounds up)',
      verdict({ remaining: 0 }),
      T0 + 59_500,
      { totalHits: 60, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 },
    ],
    [
      'the request was refused',
      verdict({ allowed: false, remaining: 0, retryAfterSeconds: 50 }),
      T0 + 10_000,
      { totalHits: 60, timeToExpire: 50, isBlocked: true, timeToBlockExpire: 50 },
    ],
  ])('should map the verdict when %s', (_name, input, nowMs, expected) => {
    expect(toThrottlerRecord(input, nowMs)).toEqual(expected);
  });
});

describe(SlidingWindowThrottlerStorage.name, () => {
  it('should block the 61st increment within 60 s at limit 60 and admit again when the oldest hit slides out', async () => {
    const { at } = makeStorage();
    for (let i = 1; i <= 60; i++) {
      const record = await at(T0 + i * 100).increment('rl:{k}:general', WINDOW_MS, 60, 0, 'g');
      // The window empties when the first hit, at T0 + 100 ms, slides out: X-RateLimit-Reset.
      expect(record).toEqual({
        totalHits: i,
        timeToExpire: Math.ceil(61 - i / 10),
        isBlocked: false,
        timeToBlockExpire: 0,
      });
    }

    const refused = await at(T0 + 10_000).increment('rl:{k}:general', WINDOW_MS, 60, 0, 'g');
    const stillRefused = await at(T0 + 60_099).increment('rl:{k}:general', WINDOW_MS, 60, 0, 'g');
    const admitted = await at(T0 + 60_100).increment('rl:{k}:general', WINDOW_MS, 60, 0, 'g');

    expect(refused).toEqual({
      totalHits: 60,
      timeToExpire: 51,
      isBlocked: true,
      timeToBlockExpire: 51,
    });
    expect(stillRefused.isBlocked).toBe(true);
    expect(admitted).toMatchObject({ totalHits: 60, isBlocked: false });
  });

  it('should count a request in every window or in none when hit together', async () => {
    const { at } = makeStorage();
    const general = { key: 'rl:{k}:general', limit: 600 };
    const bulk = { key: 'rl:{k}:bulk', limit: 2 };
    await at(T0).hitTogether([general, bulk], WINDOW_MS);
    await at(T0 + 1_000).hitTogether([general, bulk], WINDOW_MS);

    const refused = await at(T0 + 2_000).hitTogether([general, bulk], WINDOW_MS);
    const generalAlone = await at(T0 + 3_000).hitTogether([general], WINDOW_MS);

    expect(refused.map((verdict) => [verdict.allowed, verdict.remaining])).toEqual([
      [true, 598],
      [false, 0],
    ]);
    expect(refused[1].retryAfterSeconds).toBe(58);
    // The refused request left no entry in the general window.
    expect(generalAlone[0]).toMatchObject({ allowed: true, remaining: 597 });
  });

  it('should keep limiting in-process while the store fails, and start afresh on it when it is back', async () => {
    const store = new UnreachableStore();
    let nowMs = T0;
    const storage = new SlidingWindowThrottlerStorage(store, { nowMs: () => nowMs });
    const hit = () => storage.increment('rl:{k}:general', WINDOW_MS, 2, 0, 'g');

    expect((await hit()).isBlocked).toBe(false);
    nowMs += 1_000;
    expect((await hit()).isBlocked).toBe(false);
    expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 59 });

    // Back: the shared windows never saw those requests, and the local ones are dropped.
    store.isDown = false;
    store.comeBack();
    expect((await hit()).totalHits).toBe(1);
    // Down again: a fresh local window, not the one of the last outage.
    store.isDown = true;
    expect((await hit()).totalHits).toBe(1);
  });

  it('should keep separate windows per key', async () => {
    const { at } = makeStorage();
    await at(T0).increment('rl:{a}:general', WINDOW_MS, 1, 0, 'g');

    const other = await at(T0).increment('rl:{b}:general', WINDOW_MS, 1, 0, 'g');

    expect(other.isBlocked).toBe(false);
  });
});
