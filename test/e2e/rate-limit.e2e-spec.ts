import { KvStore } from '../../src/kv/kv-store';
import { hitSlidingWindows } from '../../src/rate-limit/sliding-windows';
import { createCreatorWithKey } from '../factories/creator.factory';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

describe('Rate limits (e2e)', () => {
  const clock = new TestClock();
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
  });
  afterAll(() => t.close());

  it('should refuse the 61st Publisher request in 60 s and admit again once the window slides', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const startedAtMs = clock.nowMs();
    for (let i = 1; i <= 60; i++) {
      const response = await t.http.get('/v1/account').set('Authorization', creator.authorization);
      expect(response.status).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('60');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(60 - i));
      expect(response.headers['retry-after']).toBeUndefined();
    }
    const refused = await t.http.get('/v1/account').set('Authorization', creator.authorization);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.message).toMatch(/60 requests per minute.*retry in \d+ seconds/);
    expect(refused.headers['x-ratelimit-limit']).toBe('60');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const resetAt = Number(refused.headers['x-ratelimit-reset']);
    expect(resetAt).toBeGreaterThanOrEqual(Math.floor((startedAtMs + 60_000) / 1000));
    expect(resetAt).toBeLessThanOrEqual(Math.ceil((clock.nowMs() + 60_000) / 1000));

    clock.advance(retryAfter * 1000 - 1500);
    const stillRefused = await t.http
      .get('/v1/account')
      .set('Authorization', creator.authorization);
    expect(stillRefused.status).toBe(429);

    clock.advance(60_000);
    const admitted = await t.http.get('/v1/account').set('Authorization', creator.authorization);
    expect(admitted.status).toBe(200);
    expect(admitted.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('should keep separate windows per key', async () => {
    const first = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const second = await createCreatorWithKey(t.app, { plan: 'publisher' });
    await t.http.get('/v1/account').set('Authorization', first.authorization).expect(200);
    const response = await t.http.get('/v1/account').set('Authorization', second.authorization);
    expect(response.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('should give Enterprise keys 600 per minute', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const response = await t.http.get('/v1/account').set('Authorization', creator.authorization);
    expect(response.headers['x-ratelimit-limit']).toBe('600');
    expect(response.headers['x-ratelimit-remaining']).toBe('599');
  });

  it('should send no rate-limit headers on the unauthenticated health check', async () => {
    const response = await t.http.get('/v1/health');
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
  });

  describe('the store script', () => {
    it('should admit in all windows or in none, atomically', async () => {
      const store = t.app.get(KvStore);
      const tag = `{e2e-${Date.now()}-${Math.random()}}`;
      const windows = [
        { key: `rl:${tag}:general`, limit: 3 },
        { key: `rl:${tag}:bulk`, limit: 2 },
      ];
      const nowMs = 1_700_000_000_000;
      expect((await hitSlidingWindows(store, windows, nowMs, 60_000)).allowed).toBe(true);
      expect((await hitSlidingWindows(store, windows, nowMs + 1, 60_000)).allowed).toBe(true);
      const refused = await hitSlidingWindows(store, windows, nowMs + 2, 60_000);
      expect(refused.allowed).toBe(false);
      expect(refused.windows).toEqual([
        { count: 2, oldestMs: nowMs, blockingMs: null },
        { count: 2, oldestMs: nowMs, blockingMs: nowMs },
      ]);
      // Only the general window alone: one slot left there, since the refusal logged nothing.
      const generalOnly = await hitSlidingWindows(store, [windows[0]], nowMs + 3, 60_000);
      expect(generalOnly).toEqual({
        allowed: true,
        windows: [{ count: 3, oldestMs: nowMs, blockingMs: null }],
      });
      // An entry exactly 60 s old has left the window.
      const slid = await hitSlidingWindows(store, windows, nowMs + 60_000, 60_000);
      expect(slid.allowed).toBe(true);
      expect(slid.windows[1]).toEqual({ count: 2, oldestMs: nowMs + 1, blockingMs: null });
    });
  });
});
