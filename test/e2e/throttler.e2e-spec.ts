import { Controller, Get, Module } from '@nestjs/common';
import { getStorageToken, SkipThrottle, Throttle, ThrottlerStorage } from '@nestjs/throttler';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { startTestApp, TestApp } from '../support/test-app';

/** Test-only routes that state their buckets the way feature controllers do. */
@Controller('throttle-probe')
class ThrottleProbeController {
  @Get('bulk-of-two')
  @Throttle({ bulk: { limit: () => 2 } })
  bulkOfTwo(): { ok: true } {
    return { ok: true };
  }

  @Get('uncounted')
  @SkipThrottle({ general: true })
  uncounted(): { ok: true } {
    return { ok: true };
  }
}

@Module({ controllers: [ThrottleProbeController] })
class ThrottleProbeModule {}

describe('API throttler (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({}, { imports: [ThrottleProbeModule] });
  });
  afterAll(() => t.close());

  const get = (creator: TestCreator, path: string) =>
    t.http.get(path).set('Authorization', creator.authorization);

  it('should count a route in the bucket its @Throttle names, on top of the general one, all or nothing', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });

    const admitted = [
      await get(creator, '/v1/throttle-probe/bulk-of-two'),
      await get(creator, '/v1/throttle-probe/bulk-of-two'),
    ];
    const refused = await get(creator, '/v1/throttle-probe/bulk-of-two');
    const account = await get(creator, '/v1/account');

    expect(admitted.map((response) => response.status)).toEqual([200, 200]);
    expect(admitted.map((response) => response.headers['x-ratelimit-limit'])).toEqual(['2', '2']);
    expect(admitted.map((response) => response.headers['x-ratelimit-remaining'])).toEqual([
      '1',
      '0',
    ]);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.message).toMatch(/^Rate limit of 2 requests per minute exceeded/);
    expect(refused.headers['x-ratelimit-limit']).toBe('2');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // General: the two admitted requests and this one; the refused request counted nowhere.
    expect(account.status).toBe(200);
    expect(account.headers['x-ratelimit-limit']).toBe('60');
    expect(account.headers['x-ratelimit-remaining']).toBe('57');
  });

  it('should neither count nor label a route that skips every bucket', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });

    const skipped = await get(creator, '/v1/throttle-probe/uncounted');
    const account = await get(creator, '/v1/account');

    expect(skipped.status).toBe(200);
    expect(skipped.headers['x-ratelimit-limit']).toBeUndefined();
    expect(account.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('should authenticate before it counts: no key, 401 and no rate-limit headers', async () => {
    const response = await t.http.get('/v1/throttle-probe/bulk-of-two');

    expect(response.status).toBe(401);
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it("should serve @nestjs/throttler's storage interface from the app's store, exact to the limit", async () => {
    const storage = t.app.get<ThrottlerStorage>(getStorageToken());
    const key = `rl:{e2e-${Date.now()}-${Math.random()}}:general`;

    const records = [];
    for (let i = 0; i < 3; i++) records.push(await storage.increment(key, 60_000, 2, 0, 'general'));

    expect(records.map((record) => [record.totalHits, record.isBlocked])).toEqual([
      [1, false],
      [2, false],
      [2, true],
    ]);
    expect(records[2].timeToBlockExpire).toBeGreaterThanOrEqual(59);
    expect(records[2].timeToBlockExpire).toBeLessThanOrEqual(60);
  });
});
