import { PLAN_IDS, PlanId } from '../../src/account/plan.entity';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { generateApiKey } from '../../src/auth/api-key-format';
import { CreatorsService } from '../../src/account/creators.service';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ProbeModule } from '../support/probe.module';
import { startTestApp, TestApp } from '../support/test-app';

describe('Authentication (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({}, { imports: [ProbeModule] });
  });
  afterAll(() => t.close());

  describe('error contracts', () => {
    const wellFormedUnknownKey = generateApiKey('live');
    const validKeyWithBadChecksum =
      wellFormedUnknownKey.slice(0, -1) + (wellFormedUnknownKey.endsWith('0') ? '1' : '0');
    const cases: [string, Record<string, string>, string][] = [
      ['no Authorization header', {}, 'Missing Authorization header'],
      ['an empty header', { Authorization: '' }, 'Missing Authorization header'],
      ['a Basic scheme', { Authorization: 'Basic dXNlcjpwYXNz' }, 'must be "Bearer <API key>"'],
      ['Bearer with no key', { Authorization: 'Bearer' }, 'must be "Bearer <API key>"'],
      ['a key of the wrong shape', { Authorization: 'Bearer lp_live_sk_123' }, 'malformed'],
      [
        'a key in upper case',
        { Authorization: `Bearer ${wellFormedUnknownKey.toUpperCase()}` },
        'malformed',
      ],
      [
        'a key with a bad checksum',
        { Authorization: `Bearer ${validKeyWithBadChecksum}` },
        'malformed',
      ],
      [
        'a well-formed unknown key',
        { Authorization: `Bearer ${wellFormedUnknownKey}` },
        'not recognised',
      ],
    ];

    it.each(cases)(
      'should answer 401 UNAUTHORIZED when sent %s',
      async (_name, headers, message) => {
        const response = await t.http.get('/v1/account').set(headers);
        expect(response.status).toBe(401);
        expect(response.body).toEqual({
          success: false,
          error: {
            code: 'UNAUTHORIZED',
            message: expect.stringContaining(message),
            requestId: response.headers['x-request-id'],
          },
        });
        expect(response.headers['x-ratelimit-limit']).toBeUndefined();
      },
    );

    it('should answer 401 when the key was revoked', async () => {
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      await t.http.get('/v1/account').set('Authorization', creator.authorization).expect(200);
      await t.app.get(ApiKeysService).revoke(creator.keyId);
      const response = await t.http.get('/v1/account').set('Authorization', creator.authorization);
      expect(response.status).toBe(401);
      expect(response.body.error).toMatchObject({
        code: 'UNAUTHORIZED',
        message: expect.stringContaining('revoked'),
      });
    });

    it('should never echo the key in an error', async () => {
      const key = generateApiKey('live');
      const response = await t.http.get('/v1/account').set('Authorization', `Bearer ${key}`);
      expect(JSON.stringify(response.body)).not.toContain(key.slice(11));
    });
  });

  describe('access matrix of the five plans', () => {
    const expected: Record<
      PlanId,
      { api: number; apiCode?: string; enterprise: number; enterpriseCode?: string }
    > = {
      free: {
        api: 403,
        apiCode: 'PUBLISHER_TIER_REQUIRED',
        enterprise: 403,
        enterpriseCode: 'PUBLISHER_TIER_REQUIRED',
      },
      creator: {
        api: 403,
        apiCode: 'PUBLISHER_TIER_REQUIRED',
        enterprise: 403,
        enterpriseCode: 'PUBLISHER_TIER_REQUIRED',
      },
      pro: {
        api: 403,
        apiCode: 'PUBLISHER_TIER_REQUIRED',
        enterprise: 403,
        enterpriseCode: 'PUBLISHER_TIER_REQUIRED',
      },
      publisher: { api: 200, enterprise: 403, enterpriseCode: 'ENTERPRISE_TIER_REQUIRED' },
      enterprise: { api: 200, enterprise: 200 },
    };

    it.each(PLAN_IDS.map((plan) => [plan]))('should apply the %s plan rules', async (plan) => {
      const creator = await createCreatorWithKey(t.app, { plan });
      const rule = expected[plan];

      const health = await t.http.get('/v1/health').set('Authorization', creator.authorization);
      expect(health.status).toBe(200);

      const account = await t.http.get('/v1/account').set('Authorization', creator.authorization);
      const enterprise = await t.http
        .get('/v1/test-probe/enterprise')
        .set('Authorization', creator.authorization);
      expect({
        api: account.status,
        apiCode: account.body.error?.code,
        enterprise: enterprise.status,
        enterpriseCode: enterprise.body.error?.code,
      }).toEqual(rule);
    });
  });

  describe('test keys', () => {
    it('should refuse to issue a test key to a non-Enterprise creator', async () => {
      const creator = await t.app.get(CreatorsService).create({ planId: 'publisher' });
      await expect(
        t.app.get(ApiKeysService).issue(creator.id, creator.plan, 'test', []),
      ).rejects.toMatchObject({
        code: 'ENTERPRISE_TIER_REQUIRED',
      });
    });

    it('should accept an Enterprise test key and refuse it after a downgrade', async () => {
      const creator = await createCreatorWithKey(t.app, {
        plan: 'enterprise',
        environment: 'test',
      });
      expect(creator.apiKey).toMatch(/^lp_test_sk_[0-9a-f]{40}$/);
      await t.http.get('/v1/account').set('Authorization', creator.authorization).expect(200);
      await t.app.get(CreatorsService).update(creator.creatorId, { planId: 'publisher' });
      const response = await t.http.get('/v1/account').set('Authorization', creator.authorization);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('ENTERPRISE_TIER_REQUIRED');
    });
  });

  describe('IP allowlist', () => {
    const allowlist = ['203.0.113.0/24', '198.51.100.7', '2001:db8:abcd::/48', '2001:db8::42'];
    const cases: [string, number][] = [
      ['203.0.113.1', 200],
      ['203.0.113.254', 200],
      ['203.0.114.1', 403],
      ['198.51.100.7', 200],
      ['198.51.100.8', 403],
      ['2001:db8:abcd:12::1', 200],
      ['2001:db8:abce::1', 403],
      ['2001:db8::42', 200],
      ['2001:db8::43', 403],
      ['::ffff:203.0.113.9', 200],
    ];

    it.each(cases)('should answer %s with %i behind a trusted proxy', async (clientIp, status) => {
      const creator = await createCreatorWithKey(t.app, {
        plan: 'enterprise',
        allowIps: allowlist,
      });
      const response = await t.http
        .get('/v1/account')
        .set('Authorization', creator.authorization)
        .set('X-Forwarded-For', clientIp);
      expect({ status: response.status, code: response.body.error?.code }).toEqual(
        status === 200 ? { status } : { status, code: 'IP_NOT_ALLOWLISTED' },
      );
    });

    it('should use the address the last trusted proxy saw, not one the client added', async () => {
      const creator = await createCreatorWithKey(t.app, {
        plan: 'enterprise',
        allowIps: allowlist,
      });
      // The client claims 203.0.113.1; the (trusted, loopback) proxy appended what it saw.
      const response = await t.http
        .get('/v1/account')
        .set('Authorization', creator.authorization)
        .set('X-Forwarded-For', '203.0.113.1, 192.0.2.50');
      expect(response.status).toBe(403);
    });

    it('should let an Enterprise key without an allowlist in from anywhere', async () => {
      const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
      await t.http
        .get('/v1/account')
        .set('Authorization', creator.authorization)
        .set('X-Forwarded-For', '192.0.2.1')
        .expect(200);
    });

    describe('when the peer is not a trusted proxy', () => {
      let untrusted: TestApp;
      beforeAll(async () => {
        untrusted = await startTestApp({ TRUST_PROXY: 'none' });
      });
      afterAll(() => untrusted.close());

      it('should ignore a spoofed X-Forwarded-For and judge the socket address', async () => {
        const creator = await createCreatorWithKey(untrusted.app, {
          plan: 'enterprise',
          allowIps: ['203.0.113.0/24'],
        });
        const spoofed = await untrusted.http
          .get('/v1/account')
          .set('Authorization', creator.authorization)
          .set('X-Forwarded-For', '203.0.113.5');
        expect(spoofed.status).toBe(403);
        expect(spoofed.body.error.message).toContain('127.0.0.1');

        const loopbackAllowed = await createCreatorWithKey(untrusted.app, {
          plan: 'enterprise',
          allowIps: ['127.0.0.0/8', '::1'],
        });
        await untrusted.http
          .get('/v1/account')
          .set('Authorization', loopbackAllowed.authorization)
          .set('X-Forwarded-For', '198.51.100.99')
          .expect(200);
      });
    });
  });
});
