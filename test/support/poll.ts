import { setTimeout as delay } from 'node:timers/promises';

/**
 * Reads until `isDone` holds, every `intervalMs`, for at most `timeoutMs`: for state that
 * settles in the background (probes), instead of a fixed sleep.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  isDone: (value: T) => boolean,
  { timeoutMs = 10_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (isDone(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`Not settled within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    }
    await delay(intervalMs);
  }
}
