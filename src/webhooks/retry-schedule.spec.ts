import { MAX_ATTEMPTS, RETRY_DELAYS_MS, retryDelayMs } from './retry-schedule';

describe('retryDelayMs', () => {
  it.each([
    [1, 0.5, 30_000],
    [1, 0, 24_000],
    [2, 0.5, 120_000],
    [9, 0.5, 9 * 3_600_000],
  ])('should wait the scheduled delay with jitter after %i attempts', (attempts, random, ms) => {
    expect(retryDelayMs(attempts, random)).toBe(ms);
  });

  it('should give up after the last attempt', () => {
    expect(retryDelayMs(MAX_ATTEMPTS, 0.5)).toBeNull();
    expect(MAX_ATTEMPTS).toBe(10);
  });

  it('should keep the whole schedule within about 24 hours', () => {
    const totalMs = RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0);
    expect(totalMs).toBeLessThanOrEqual(24 * 3_600_000);
    expect(totalMs).toBeGreaterThan(20 * 3_600_000);
  });
});
