import { Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { MemoryKvStore } from '../kv/memory-kv-store';
import { FailedAuthThrottle } from './failed-auth-throttle';

const LIMIT = 5;
const T0 = Date.UTC(2025, 0, 1);
const CLIENT = '203.0.113.7';

class ManualClock extends Clock {
  constructor(public ms: number) {
    super();
  }

  nowMs(): number {
    return this.ms;
  }
}

async function refusalOf(attempt: Promise<void>): Promise<AppError> {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a 429');
}

describe(FailedAuthThrottle.name, () => {
  let clock: ManualClock;
  let store: MemoryKvStore;
  let throttle: FailedAuthThrottle;

  beforeEach(() => {
    clock = new ManualClock(T0);
    store = new MemoryKvStore(() => clock.ms);
    throttle = new FailedAuthThrottle(store, clock, LIMIT);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await store.close();
  });

  async function failTimes(count: number, clientIp = CLIENT, stepMs = 0): Promise<void> {
    for (let i = 0; i < count; i++) {
      await throttle.recordFailure(clientIp);
      clock.ms += stepMs;
    }
  }

  it('should not block a client below the limit', async () => {
    await failTimes(LIMIT - 1);

    await expect(throttle.assertNotBlocked(CLIENT)).resolves.toBeUndefined();
  });

  it('should let the failure that reaches the limit answer as it is, then block the client', async () => {
    await failTimes(LIMIT - 1);
    await expect(throttle.recordFailure(CLIENT)).resolves.toBeUndefined();

    const refusal = await refusalOf(throttle.assertNotBlocked(CLIENT));

    expect(refusal.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refusal.status).toBe(429);
    expect(refusal.headers).toEqual({ 'Retry-After': '60' });
    expect(refusal.message).toBe(
      `Too many failed authentications from this address: the limit is ${LIMIT} per minute; retry in 60 seconds.`,
    );
  });

  it('should leave other clients alone when one is blocked', async () => {
    await failTimes(LIMIT);

    await expect(throttle.assertNotBlocked('203.0.113.8')).resolves.toBeUndefined();
  });

  it('should count the addresses of one IPv6 /64 as one client', async () => {
    for (let i = 1; i <= LIMIT; i++) await throttle.recordFailure(`2001:db8:7:7::${i}`);

    await expect(refusalOf(throttle.assertNotBlocked('2001:db8:7:7::ffff'))).resolves.toMatchObject(
      { code: 'RATE_LIMIT_EXCEEDED' },
    );
    await expect(throttle.assertNotBlocked('2001:db8:7:8::1')).resolves.toBeUndefined();
  });

  it('should unblock when the oldest failure leaves the window, and block again on the next failure', async () => {
    await failTimes(LIMIT, CLIENT, 1_000); // failures at T0, T0 + 1 s, ... T0 + 4 s
    clock.ms = T0 + 30_000;
    expect((await refusalOf(throttle.assertNotBlocked(CLIENT))).headers).toEqual({
      'Retry-After': '30',
    });

    clock.ms = T0 + 60_000;
    await expect(throttle.assertNotBlocked(CLIENT)).resolves.toBeUndefined();

    // The window holds the four newer failures; one more fills it until T0 + 1 s leaves.
    await throttle.recordFailure(CLIENT);
    expect((await refusalOf(throttle.assertNotBlocked(CLIENT))).headers).toEqual({
      'Retry-After': '1',
    });
  });

  it('should answer 429 to a failure that finds the window already full (requests racing the check)', async () => {
    await failTimes(LIMIT);
    clock.ms += 10_000;

    const refusal = await refusalOf(throttle.recordFailure(CLIENT));

    expect(refusal).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      headers: { 'Retry-After': '50' },
    });
  });

  describe('when the store is unreachable', () => {
    const outage = (): Promise<never> => Promise.reject(new Error('connect ECONNREFUSED'));

    it('should fail open and log the outage once, then its end once', async () => {
      const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const notes = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
      const down = [
        jest.spyOn(store, 'getString').mockImplementation(outage),
        jest.spyOn(store, 'runScript').mockImplementation(outage),
        jest.spyOn(store, 'setString').mockImplementation(outage),
      ];

      for (let i = 0; i < LIMIT * 3; i++) {
        await expect(throttle.assertNotBlocked(CLIENT)).resolves.toBeUndefined();
        await expect(throttle.recordFailure(CLIENT)).resolves.toBeUndefined();
      }
      expect(errors).toHaveBeenCalledTimes(1);
      expect(errors.mock.calls[0][0]).toContain('not throttled');

      for (const spy of down) spy.mockRestore();
      await throttle.assertNotBlocked(CLIENT);
      await throttle.assertNotBlocked(CLIENT);
      expect(notes).toHaveBeenCalledTimes(1);
      expect(errors).toHaveBeenCalledTimes(1);
    });
  });
});
