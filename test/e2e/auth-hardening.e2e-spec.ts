import { randomInt } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Test } from 'supertest';
import { generateApiKey } from '../../src/auth/api-key-format';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { FAILED_AUTH_WINDOW_MS } from '../../src/auth/failed-auth-policy';
import { FAILED_AUTHS_PER_MINUTE } from '../../src/config/env';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

const LIMIT = FAILED_AUTHS_PER_MINUTE;

/**
 * A client address of this run only. Failures are counted per address in the shared Redis,
 * which outlives a run; a fresh address keeps tests and reruns from throttling each other.
 */
function freshClientIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

describe('Authentication hardening (e2e)', () => {
  const clock = new TestClock();
  let t: TestApp;
  let publisher: TestCreator;

  beforeAll(async () => {
    // The documented default, whatever the shared test defaults say.
    t = await startTestApp({ AUTH_FAILURES_PER_MINUTE: String(LIMIT) }, { clock });
    publisher = await createCreatorWithKey(t.app, { plan: 'publisher' });
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  /** GET `path` as the client at `clientIp` (the loopback test agent is a trusted proxy). */
  const getFrom = (clientIp: string, path: string, authorization?: string): Test => {
    const test = t.http.get(path).set('X-Forwarded-For', clientIp);
    return authorization === undefined ? test : test.set('Authorization', authorization);
  };
  const unknownKey = (): string => `Bearer ${generateApiKey('live')}`;

  describe('the Bearer scheme', () => {
    it.each([
      ['bearer', (key: string) => `bearer ${key}`],
      ['BEARER', (key: string) => `BEARER ${key}`],
      ['Bearer followed by several spaces', (key: string) => `Bearer    ${key}`],
    ])('should accept %s', async (_name, authorization) => {
      const response = await getFrom(
        freshClientIp(),
        '/v1/account',
        authorization(publisher.apiKey),
      );

      expect(response.status).toBe(200);
    });

    it('should still refuse another scheme', async () => {
      const response = await getFrom(freshClientIp(), '/v1/account', `Token ${publisher.apiKey}`);

      expect(response.status).toBe(401);
      expect(response.body.error.message).toContain('must be "Bearer <API key>"');
    });
  });

  describe('failed authentications per client address', () => {
    it(`should answer 401 to the first ${LIMIT} failures of every kind, then 429 before any key lookup`, async () => {
      const clientIp = freshClientIp();
      const revoked = await createCreatorWithKey(t.app, { plan: 'publisher' });
      await t.app.get(ApiKeysService).revoke(revoked.keyId);
      const failures = [
        undefined, // no header
        'Basic dXNlcjpwYXNz',
        'Bearer lp_live_sk_123', // malformed
        revoked.authorization,
      ];
      while (failures.length < LIMIT) failures.push(unknownKey());

      for (const authorization of failures) {
        const response = await getFrom(clientIp, '/v1/account', authorization);
        expect({ status: response.status, code: response.body.error?.code }).toEqual({
          status: 401,
          code: 'UNAUTHORIZED',
        });
      }
      const lookups = jest.spyOn(t.app.get(ApiKeysService), 'authenticate');
      const refused = await getFrom(clientIp, '/v1/account', unknownKey());

      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        success: false,
        error: {
          code: 'RATE_LIMIT_EXCEEDED',
          message: expect.stringMatching(
            new RegExp(
              `the limit is ${LIMIT} per minute; until the block ends only keys already used ` +
                `from this address are accepted; retry in \\d+ seconds\\.$`,
            ),
          ),
          requestId: refused.headers['x-request-id'],
        },
      });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.body.error.message).toContain(`retry in ${retryAfter} seconds`);
      expect(lookups).not.toHaveBeenCalled();
    });

    it('should refuse a valid key never used from the blocked address exactly as a bad one, and leave health open', async () => {
      const clientIp = freshClientIp();
      for (let i = 0; i < LIMIT; i++) {
        await getFrom(clientIp, '/v1/account', unknownKey()).expect(401);
      }
      const lookups = jest.spyOn(t.app.get(ApiKeysService), 'authenticate');

      // No oracle: a prober learns nothing of which of its keys are live.
      const validKey = await getFrom(clientIp, '/v1/account', publisher.authorization);
      const badKey = await getFrom(clientIp, '/v1/account', unknownKey());
      for (const refused of [validKey, badKey]) {
        expect(refused.status).toBe(429);
        expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
        expect(refused.headers['retry-after']).toBeDefined();
      }
      expect(validKey.body.error.message).toBe(badKey.body.error.message);
      expect(lookups).not.toHaveBeenCalled();

      await getFrom(clientIp, '/v1/health').expect(200);
      await getFrom(clientIp, '/v1/health', unknownKey()).expect(200);
    });

    it('should serve a key already used from the address with only 200s while bad keys flood from it at 20/s', async () => {
      const clientIp = freshClientIp();
      const customer = await createCreatorWithKey(t.app, { plan: 'publisher' });
      await getFrom(clientIp, '/v1/account', customer.authorization).expect(200);
      const lookups = jest.spyOn(t.app.get(ApiKeysService), 'authenticate');

      const floodMs = 4_000;
      const endsAt = Date.now() + floodMs;
      const badKeyStatuses: number[] = [];
      const customerStatuses: number[] = [];
      const badKeys = async (): Promise<void> => {
        while (Date.now() < endsAt) {
          const sentAt = Date.now();
          badKeyStatuses.push((await getFrom(clientIp, '/v1/account', unknownKey())).status);
          await delay(Math.max(0, 50 - (Date.now() - sentAt)));
        }
      };
      // Under the Publisher limit of 60 a minute: its own limits apply, and are not reached.
      const customerCalls = async (): Promise<void> => {
        while (Date.now() < endsAt) {
          const response = await getFrom(clientIp, '/v1/account', customer.authorization);
          customerStatuses.push(response.status);
          await delay(200);
        }
      };
      await Promise.all([badKeys(), customerCalls()]);

      expect(badKeyStatuses.length).toBeGreaterThanOrEqual(60);
      expect(badKeyStatuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
      expect(new Set(badKeyStatuses.slice(LIMIT))).toEqual(new Set([429]));
      expect(customerStatuses.length).toBeGreaterThanOrEqual(15);
      expect(new Set(customerStatuses)).toEqual(new Set([200]));
      // Past the budget the bad keys were refused before any lookup.
      const badKeyLookups = lookups.mock.calls.filter(
        ([header]) => header !== customer.authorization,
      );
      expect(badKeyLookups).toHaveLength(LIMIT);

      // A valid key first used from there during the block waits for the block to end.
      const newcomer = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const refused = await getFrom(clientIp, '/v1/account', newcomer.authorization).expect(429);
      expect(lookups.mock.calls.map(([header]) => header)).not.toContain(newcomer.authorization);
      clock.advance(Number(refused.headers['retry-after']) * 1000);
      await getFrom(clientIp, '/v1/account', newcomer.authorization).expect(200);
    });

    it('should still apply revocation to a key already used from a blocked address', async () => {
      const clientIp = freshClientIp();
      const customer = await createCreatorWithKey(t.app, { plan: 'publisher' });
      await getFrom(clientIp, '/v1/account', customer.authorization).expect(200);
      for (let i = 0; i < LIMIT; i++) {
        await getFrom(clientIp, '/v1/account', unknownKey()).expect(401);
      }
      await getFrom(clientIp, '/v1/account', customer.authorization).expect(200);

      await t.app.get(ApiKeysService).revoke(customer.keyId);
      const lookups = jest.spyOn(t.app.get(ApiKeysService), 'authenticate');

      // Looked up, found revoked, and counted as one more failure over the limit.
      const refused = await getFrom(clientIp, '/v1/account', customer.authorization);
      expect(refused.status).toBe(429);
      expect(lookups).toHaveBeenCalledTimes(1);
    });

    it('should leave a valid key and other failures from a different address unaffected', async () => {
      const blockedIp = freshClientIp();
      for (let i = 0; i < LIMIT; i++) {
        await getFrom(blockedIp, '/v1/account', unknownKey()).expect(401);
      }
      await getFrom(blockedIp, '/v1/account', unknownKey()).expect(429);

      const otherIp = freshClientIp();
      await getFrom(otherIp, '/v1/account', publisher.authorization).expect(200);
      await getFrom(otherIp, '/v1/account', unknownKey()).expect(401);
    });

    it(`should throttle nothing below ${LIMIT} failures`, async () => {
      const clientIp = freshClientIp();
      for (let i = 0; i < LIMIT - 1; i++) {
        await getFrom(clientIp, '/v1/account', unknownKey()).expect(401);
      }

      // A success neither blocks nor resets the count: the next failure is the last allowed one.
      await getFrom(clientIp, '/v1/account', publisher.authorization).expect(200);
      await getFrom(clientIp, '/v1/account', unknownKey()).expect(401);
      await getFrom(clientIp, '/v1/account', unknownKey()).expect(429);
      // The key that succeeded from there is served through the block.
      await getFrom(clientIp, '/v1/account', publisher.authorization).expect(200);
    });

    it('should not count refusals of genuine keys (403) as failures', async () => {
      const clientIp = freshClientIp();
      const free = await createCreatorWithKey(t.app, { plan: 'free' });

      for (let i = 0; i < LIMIT + 2; i++) {
        const response = await getFrom(clientIp, '/v1/account', free.authorization);
        expect(response.status).toBe(403);
      }
      await getFrom(clientIp, '/v1/account', publisher.authorization).expect(200);
    });

    it('should count the addresses of one IPv6 /64 as one client', async () => {
      const prefix = `2001:db8:${randomInt(0x10000).toString(16)}:${randomInt(0x10000).toString(16)}`;
      for (let i = 1; i <= LIMIT; i++) {
        await getFrom(`${prefix}::${i.toString(16)}`, '/v1/account', unknownKey()).expect(401);
      }

      await getFrom(`${prefix}::ffff`, '/v1/account', publisher.authorization).expect(429);
    });

    it('should count forwarded values that are no address under one key, not one budget each', async () => {
      // Every such value shares one key, so also with earlier runs: theirs slide out first.
      clock.advance(FAILED_AUTH_WINDOW_MS);
      // From the trusted proxy (the loopback test agent), as a misconfigured proxy forwards them.
      const tag = randomInt(1_000_000);
      for (let i = 1; i <= LIMIT; i++) {
        await getFrom(`evil-${tag}-${i}`, '/v1/account', unknownKey()).expect(401);
      }

      await getFrom(`evil-${tag}-${LIMIT + 1}`, '/v1/account', unknownKey()).expect(429);
      await getFrom(`not an address ${tag}`, '/v1/account', unknownKey()).expect(429);
      await getFrom(freshClientIp(), '/v1/account', unknownKey()).expect(401);
    });

    it('should admit the address again once the failures slide out of the minute', async () => {
      const clientIp = freshClientIp();
      for (let i = 0; i < LIMIT; i++) {
        await getFrom(clientIp, '/v1/account', unknownKey()).expect(401);
      }
      const refused = await getFrom(clientIp, '/v1/account', publisher.authorization).expect(429);

      clock.advance(Number(refused.headers['retry-after']) * 1000);

      await getFrom(clientIp, '/v1/account', publisher.authorization).expect(200);
    });
  });

  describe('when Redis is unreachable', () => {
    let offline: TestApp;
    beforeAll(async () => {
      // Port 9 (discard) on loopback: nothing listens, connections are refused at once.
      offline = await startTestApp({
        REDIS_URL: 'redis://127.0.0.1:9',
        AUTH_FAILURES_PER_MINUTE: '2',
      });
    });
    afterAll(() => offline.close());

    it('should fail open: failures keep answering 401, never 429', async () => {
      const clientIp = freshClientIp();
      for (let i = 0; i < 5; i++) {
        const response = await offline.http
          .get('/v1/account')
          .set('X-Forwarded-For', clientIp)
          .set('Authorization', unknownKey());
        expect({ status: response.status, code: response.body.error?.code }).toEqual({
          status: 401,
          code: 'UNAUTHORIZED',
        });
      }
    });
  });
});
