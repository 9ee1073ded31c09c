import { Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { MemoryKvStore } from '../kv/memory-kv-store';
import { generateApiKey } from './api-key-format';
import { AuthAttempt, FailedAuthThrottle } from './failed-auth-throttle';
import {
  KNOWN_KEY_REFRESH_MS,
  KNOWN_KEY_TTL_MS,
  MAX_KNOWN_KEYS_PER_CLIENT,
} from './failed-auth-policy';

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

const bearer = (key: string): string => `Bearer ${key}`;
const unknownKey = (): string => bearer(generateApiKey('live'));

async function refusalOf(attempt: Promise<unknown>): Promise<AppError> {
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

  /** What the guard does with a key that fails: check, then count the failure. */
  async function fail(clientIp = CLIENT): Promise<void> {
    await throttle.recordFailure(await throttle.admit(clientIp, unknownKey()));
  }

  async function failTimes(count: number, clientIp = CLIENT, stepMs = 0): Promise<void> {
    for (let i = 0; i < count; i++) {
      await fail(clientIp);
      clock.ms += stepMs;
    }
  }

  /** What the guard does with a key that authenticates: check, then remember it. */
  async function succeed(authorization: string, clientIp = CLIENT): Promise<AuthAttempt> {
    const attempt = await throttle.admit(clientIp, authorization);
    await throttle.recordSuccess(attempt);
    return attempt;
  }

  it('should not block a client below the limit', async () => {
    await failTimes(LIMIT - 1);

    await expect(throttle.admit(CLIENT, unknownKey())).resolves.toMatchObject({
      subject: CLIENT,
    });
  });

  it('should let the failure that reaches the limit answer as it is, then block the client', async () => {
    await failTimes(LIMIT - 1);
    await expect(fail()).resolves.toBeUndefined();

    const refusal = await refusalOf(throttle.admit(CLIENT, unknownKey()));

    expect(refusal.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refusal.status).toBe(429);
    expect(refusal.headers).toEqual({ 'Retry-After': '60' });
    expect(refusal.message).toBe(
      `Too many failed authentications from this address: the limit is ${LIMIT} per minute; ` +
        'until the block ends only keys already used from this address are accepted; retry in 60 seconds.',
    );
  });

  it.each([
    ['no header', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a malformed key', 'Bearer lp_live_sk_123'],
  ])('should refuse %s while the client is blocked', async (_name, authorization) => {
    await failTimes(LIMIT);

    await expect(refusalOf(throttle.admit(CLIENT, authorization))).resolves.toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
    });
  });

  it('should leave other clients alone when one is blocked', async () => {
    await failTimes(LIMIT);

    await expect(throttle.admit('203.0.113.8', unknownKey())).resolves.toBeDefined();
  });

  it('should count the addresses of one IPv6 /64 as one client', async () => {
    for (let i = 1; i <= LIMIT; i++) await fail(`2001:db8:7:7::${i}`);

    await expect(
      refusalOf(throttle.admit('2001:db8:7:7::ffff', unknownKey())),
    ).resolves.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    await expect(throttle.admit('2001:db8:7:8::1', unknownKey())).resolves.toBeDefined();
  });

  it('should count forwarded values that are no address as one client', async () => {
    for (let i = 1; i <= LIMIT; i++) await fail(`evil-${i}`);

    await expect(refusalOf(throttle.admit('evil-other', unknownKey()))).resolves.toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
    });
    await expect(throttle.admit('203.0.113.99', unknownKey())).resolves.toBeDefined();
  });

  it('should unblock when the oldest failure leaves the window, and block again on the next failure', async () => {
    await failTimes(LIMIT, CLIENT, 1_000); // failures at T0, T0 + 1 s, ... T0 + 4 s
    clock.ms = T0 + 30_000;
    expect((await refusalOf(throttle.admit(CLIENT, unknownKey()))).headers).toEqual({
      'Retry-After': '30',
    });

    clock.ms = T0 + 60_000;
    await expect(throttle.admit(CLIENT, unknownKey())).resolves.toBeDefined();

    // The window holds the four newer failures; one more fills it until T0 + 1 s leaves.
    await fail();
    expect((await refusalOf(throttle.admit(CLIENT, unknownKey()))).headers).toEqual({
      'Retry-After': '1',
    });
  });

  it('should answer 429 to a failure that finds the window already full (requests racing the check)', async () => {
    const racing: AuthAttempt[] = [];
    for (let i = 0; i <= LIMIT; i++) racing.push(await throttle.admit(CLIENT, unknownKey()));
    for (const attempt of racing.slice(0, LIMIT)) await throttle.recordFailure(attempt);
    clock.ms += 10_000;

    const refusal = await refusalOf(throttle.recordFailure(racing[LIMIT]));

    expect(refusal).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      headers: { 'Retry-After': '50' },
    });
  });

  describe('keys known to the client', () => {
    const known = unknownKey();

    it('should admit a key that authenticated from the client before it was blocked', async () => {
      await succeed(known);
      await failTimes(LIMIT);

      await expect(throttle.admit(CLIENT, known)).resolves.toMatchObject({
        keyLastSeenMs: T0,
      });
      // Any other key, valid or not, is refused before its lookup.
      await expect(refusalOf(throttle.admit(CLIENT, unknownKey()))).resolves.toMatchObject({
        code: 'RATE_LIMIT_EXCEEDED',
      });
    });

    it('should admit the key in any spelling of the Bearer scheme', async () => {
      await succeed(known);
      await failTimes(LIMIT);

      await expect(
        throttle.admit(CLIENT, known.replace('Bearer', 'bearer ')),
      ).resolves.toBeDefined();
    });

    it('should not admit a key known only to another client', async () => {
      await succeed(known, '203.0.113.8');
      await failTimes(LIMIT);

      await expect(refusalOf(throttle.admit(CLIENT, known))).resolves.toMatchObject({
        code: 'RATE_LIMIT_EXCEEDED',
      });
    });

    it('should admit a key known to another address of the same /64', async () => {
      await succeed(known, '2001:db8:9:9::1');
      for (let i = 1; i <= LIMIT; i++) await fail(`2001:db8:9:9::${i + 1}`);

      await expect(throttle.admit('2001:db8:9:9::abcd', known)).resolves.toBeDefined();
    });

    it('should forget a key a day after it last authenticated', async () => {
      await succeed(known);
      clock.ms = T0 + KNOWN_KEY_TTL_MS;
      await failTimes(LIMIT);

      await expect(refusalOf(throttle.admit(CLIENT, known))).resolves.toMatchObject({
        code: 'RATE_LIMIT_EXCEEDED',
      });
    });

    it('should keep a key in daily use known, writing its time at most once an hour', async () => {
      const remembered = jest.spyOn(store, 'runScript');
      await succeed(known);
      const writes = (): number =>
        remembered.mock.calls.filter(([script]) => script.name === 'rememberAuthenticatedKey')
          .length;
      expect(writes()).toBe(1);

      for (let minute = 1; minute < 60; minute++) {
        clock.ms = T0 + minute * 60_000;
        await succeed(known);
      }
      expect(writes()).toBe(1);

      // Used every hour for two days: never forgotten, 48 more writes.
      for (let hour = 1; hour <= 48; hour++) {
        clock.ms = T0 + hour * KNOWN_KEY_REFRESH_MS;
        await succeed(known);
      }
      expect(writes()).toBe(49);
      await failTimes(LIMIT);
      await expect(throttle.admit(CLIENT, known)).resolves.toBeDefined();
    });

    it(`should keep at most ${MAX_KNOWN_KEYS_PER_CLIENT} keys per client, forgetting the least recently seen`, async () => {
      const keys = Array.from({ length: MAX_KNOWN_KEYS_PER_CLIENT + 1 }, unknownKey);
      for (const key of keys) {
        await succeed(key);
        clock.ms += 1;
      }
      await failTimes(LIMIT);

      await expect(refusalOf(throttle.admit(CLIENT, keys[0]))).resolves.toMatchObject({
        code: 'RATE_LIMIT_EXCEEDED',
      });
      await expect(throttle.admit(CLIENT, keys[1])).resolves.toBeDefined();
      await expect(throttle.admit(CLIENT, keys[MAX_KNOWN_KEYS_PER_CLIENT])).resolves.toBeDefined();
    });

    it('should remember nothing for a header that holds no well-formed key', async () => {
      const writes = jest.spyOn(store, 'runScript');
      for (const authorization of [undefined, 'Bearer lp_live_sk_123', 'Basic dXNlcjpwYXNz']) {
        await succeed(authorization as string);
      }

      expect(writes.mock.calls.map(([script]) => script.name)).not.toContain(
        'rememberAuthenticatedKey',
      );
    });

    it('should store the hash of a key, never the key', async () => {
      const writes = jest.spyOn(store, 'runScript');
      const key = generateApiKey('live');
      await succeed(bearer(key));

      for (const [, keys, args] of writes.mock.calls) {
        expect(JSON.stringify([keys, args])).not.toContain(key);
      }
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
        const attempt = await throttle.admit(CLIENT, unknownKey());
        expect(attempt.wasChecked).toBe(false);
        await expect(throttle.recordFailure(attempt)).resolves.toBeUndefined();
        await expect(throttle.recordSuccess(attempt)).resolves.toBeUndefined();
      }
      expect(errors).toHaveBeenCalledTimes(1);
      expect(errors.mock.calls[0][0]).toContain('not throttled');
      // One failed call per request: nothing is written for a request the store did not check.
      expect(down[1]).toHaveBeenCalledTimes(LIMIT * 3);

      for (const spy of down) spy.mockRestore();
      await throttle.admit(CLIENT, unknownKey());
      await throttle.admit(CLIENT, unknownKey());
      expect(notes).toHaveBeenCalledTimes(1);
      expect(errors).toHaveBeenCalledTimes(1);
    });
  });
});
