import { randomInt } from 'node:crypto';
import type { Test } from 'supertest';
import { generateApiKey } from '../../src/auth/api-key-format';
import { ApiKeysService } from '../../src/auth/api-keys.service';
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
            new RegExp(`the limit is ${LIMIT} per minute; retry in \\d+ seconds\\.$`),
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

    it('should block a valid key from the blocked address too, and leave health open', async () => {
      const clientIp = freshClientIp();
      for (let i = 0; i < LIMIT; i++) {
        await getFrom(clientIp, '/v1/account', unknownKey()).expect(401);
      }

      const validKey = await getFrom(clientIp, '/v1/account', publisher.authorization);
      expect(validKey.status).toBe(429);
      expect(validKey.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(validKey.headers['retry-after']).toBeDefined();

      await getFrom(clientIp, '/v1/health').expect(200);
      await getFrom(clientIp, '/v1/health', unknownKey()).expect(200);
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
      await getFrom(clientIp, '/v1/account', publisher.authorization).expect(429);
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
