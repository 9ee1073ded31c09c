import * as fc from 'fast-check';
import {
  describeWindow,
  hitSlidingLogs,
  pickBindingWindow,
  RateLimitVerdict,
  WindowState,
} from './sliding-log';

const WINDOW_MS = 60_000;
// 2025-01-01T00:00:00.000Z: a whole number of seconds, so Reset values are easy to read.
const T0 = Date.UTC(2025, 0, 1);

/** One key's log, hit with an injected clock. */
function makeLimiter(limit: number) {
  const log: number[] = [];
  return {
    log,
    hit(nowMs: number, limitNow = limit) {
      const decision = hitSlidingLogs([log], [limitNow], nowMs, WINDOW_MS);
      const verdict = describeWindow(
        decision.windows[0],
        limitNow,
        decision.allowed,
        nowMs,
        WINDOW_MS,
      );
      return { decision, verdict };
    },
  };
}

function verdictOf(overrides: Partial<RateLimitVerdict>): RateLimitVerdict {
  return {
    allowed: true,
    limit: 60,
    remaining: 10,
    resetAtSeconds: T0 / 1000 + 60,
    retryAfterSeconds: 0,
    ...overrides,
  };
}

describe(hitSlidingLogs.name, () => {
  it('should refuse the 61st request with remaining 0 and Retry-After until the oldest entry leaves when 60 requests arrived within 60 s at limit 60', () => {
    const limiter = makeLimiter(60);
    for (let i = 0; i < 60; i++) {
      const { decision, verdict } = limiter.hit(T0 + i * 100);
      expect(decision.allowed).toBe(true);
      expect(verdict.remaining).toBe(59 - i);
    }

    const { decision, verdict } = limiter.hit(T0 + 10_000);

    expect(decision.allowed).toBe(false);
    expect(decision.windows[0]).toEqual({ count: 60, oldestMs: T0, blockingMs: T0 });
    expect(verdict).toEqual({
      allowed: false,
      limit: 60,
      remaining: 0,
      resetAtSeconds: T0 / 1000 + 60,
      retryAfterSeconds: 50,
    });
  });

  it('should admit again exactly when the oldest entry slides out when the client keeps retrying', () => {
    const limiter = makeLimiter(60);
    for (let i = 0; i < 60; i++) limiter.hit(T0 + i * 100);

    const steps: Array<[offsetMs: number, allowed: boolean, retryAfterSeconds: number]> = [
      [30_000, false, 30],
      [59_000, false, 1],
      [59_999, false, 1],
      [60_000, true, 0], // T0 is now exactly now - windowMs: outside the window
      [60_000, false, 1], // T0 + 100 still inside
      [60_100, true, 0],
    ];
    for (const [offsetMs, allowed, retryAfterSeconds] of steps) {
      const { verdict } = limiter.hit(T0 + offsetMs);
      expect({
        offsetMs,
        allowed: verdict.allowed,
        retryAfterSeconds: verdict.retryAfterSeconds,
      }).toEqual({ offsetMs, allowed, retryAfterSeconds });
    }
    expect(limiter.log).toHaveLength(60);
  });

  it.each([
    { offsetMs: 59_999, allowed: false },
    { offsetMs: 60_000, allowed: true },
    { offsetMs: 60_001, allowed: true },
  ])(
    'should treat an entry at exactly now - windowMs as outside the window when the next request comes $offsetMs ms later (allowed=$allowed)',
    ({ offsetMs, allowed }) => {
      const log = [T0];

      const decision = hitSlidingLogs([log], [1], T0 + offsetMs, WINDOW_MS);

      expect(decision.allowed).toBe(allowed);
      expect(log).toEqual(allowed ? [T0 + offsetMs] : [T0]);
    },
  );

  it('should not log refused requests when a client keeps retrying at the limit', () => {
    const log: number[] = [];
    hitSlidingLogs([log], [2], T0, WINDOW_MS);
    hitSlidingLogs([log], [2], T0 + 1_000, WINDOW_MS);

    for (let i = 0; i < 20; i++) {
      const decision = hitSlidingLogs([log], [2], T0 + 2_000 + i * 1_000, WINDOW_MS);
      expect(decision.allowed).toBe(false);
      expect(decision.windows[0].count).toBe(2);
    }

    expect(log).toEqual([T0, T0 + 1_000]);
    expect(hitSlidingLogs([log], [2], T0 + 60_000, WINDOW_MS).allowed).toBe(true);
  });

  it.each([
    {
      name: 'the second window is full',
      first: { limit: 60, entries: 10 },
      second: { limit: 10, entries: 10 },
      blocking: [null, T0],
    },
    {
      name: 'the first window is full',
      first: { limit: 10, entries: 10 },
      second: { limit: 60, entries: 3 },
      blocking: [T0, null],
    },
    {
      name: 'both windows are full',
      first: { limit: 5, entries: 5 },
      second: { limit: 3, entries: 3 },
      blocking: [T0, T0],
    },
  ])(
    'should log nothing in any window when $name (all or nothing)',
    ({ first, second, blocking }) => {
      const logs = [first, second].map(({ entries }) =>
        Array.from({ length: entries }, (_, i) => T0 + i * 1_000),
      );
      const before = logs.map((log) => [...log]);

      const decision = hitSlidingLogs(logs, [first.limit, second.limit], T0 + 20_000, WINDOW_MS);

      expect(decision.allowed).toBe(false);
      expect(logs).toEqual(before);
      expect(decision.windows.map((window) => window.count)).toEqual([
        first.entries,
        second.entries,
      ]);
      expect(decision.windows.map((window) => window.blockingMs)).toEqual(blocking);
    },
  );

  it('should log the request in every window when all windows have room', () => {
    const logs = [[T0], [T0, T0 + 1_000]];

    const decision = hitSlidingLogs(logs, [60, 10], T0 + 5_000, WINDOW_MS);

    expect(decision.allowed).toBe(true);
    expect(logs).toEqual([
      [T0, T0 + 5_000],
      [T0, T0 + 1_000, T0 + 5_000],
    ]);
    expect(decision.windows).toEqual([
      { count: 2, oldestMs: T0, blockingMs: null },
      { count: 3, oldestMs: T0, blockingMs: null },
    ]);
  });

  it('should name the entry whose expiry frees a slot as blockingMs when the limit was lowered below the current count', () => {
    // Five entries one second apart, then the plan drops to 3/min: two entries must leave
    // before the count is below 3, so the third entry (T0 + 2 s) is the blocking one.
    const limiter = makeLimiter(5);
    for (let i = 0; i < 5; i++) limiter.hit(T0 + i * 1_000);

    const refused = limiter.hit(T0 + 10_000, 3);

    expect(refused.decision.windows[0]).toEqual({
      count: 5,
      oldestMs: T0,
      blockingMs: T0 + 2_000,
    });
    expect(refused.verdict).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 52 });
    expect(limiter.hit(T0 + 61_999, 3).decision.allowed).toBe(false);
    expect(limiter.hit(T0 + 62_000, 3).decision.allowed).toBe(true);
  });

  it('should keep the log sorted when a timestamp arrives out of order', () => {
    const log = [T0 + 2_000];

    const decision = hitSlidingLogs([log], [5], T0 + 1_000, WINDOW_MS);

    expect(log).toEqual([T0 + 1_000, T0 + 2_000]);
    expect(decision.windows[0].oldestMs).toBe(T0 + 1_000);
  });

  // Arbitrary traffic: bursts (gap 0), steady streams and long pauses, with a limit of 1..20.
  const trafficArbitrary = fc.record({
    limit: fc.integer({ min: 1, max: 20 }),
    gapsMs: fc.array(
      fc.oneof(
        fc.constant(0),
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 0, max: 70_000 }),
      ),
      { maxLength: 150 },
    ),
  });

  const admittedWithin = (admitted: number[], nowMs: number): number =>
    admitted.filter((t) => t > nowMs - WINDOW_MS && t <= nowMs).length;

  it('should never admit more than limit requests in any 60 s window when timestamps are non-decreasing', () => {
    fc.assert(
      fc.property(trafficArbitrary, ({ limit, gapsMs }) => {
        const log: number[] = [];
        const admitted: number[] = [];
        let nowMs = T0;
        for (const gapMs of gapsMs) {
          nowMs += gapMs;
          if (hitSlidingLogs([log], [limit], nowMs, WINDOW_MS).allowed) admitted.push(nowMs);
          // The busiest window always ends on an admitted request.
          expect(admittedWithin(admitted, nowMs)).toBeLessThanOrEqual(limit);
        }
      }),
    );
  });

  it('should refuse a request only when exactly limit admitted requests lie in (now - 60 s, now]', () => {
    fc.assert(
      fc.property(trafficArbitrary, ({ limit, gapsMs }) => {
        const log: number[] = [];
        const admitted: number[] = [];
        let nowMs = T0;
        for (const gapMs of gapsMs) {
          nowMs += gapMs;
          const inWindow = admittedWithin(admitted, nowMs);

          const decision = hitSlidingLogs([log], [limit], nowMs, WINDOW_MS);

          expect(decision.allowed).toBe(inWindow !== limit);
          expect(decision.windows[0].count).toBe(decision.allowed ? inWindow + 1 : inWindow);
          if (decision.allowed) admitted.push(nowMs);
        }
      }),
    );
  });

  it('should report a non-negative remaining and a Retry-After that is exactly long enough when the limit changes between requests', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 20_000 })),
            limit: fc.integer({ min: 1, max: 20 }),
          }),
          { maxLength: 150 },
        ),
        (requests) => {
          const limiter = makeLimiter(1);
          let nowMs = T0;
          for (const { gapMs, limit } of requests) {
            nowMs += gapMs;
            const probe = [...limiter.log];

            const { verdict } = limiter.hit(nowMs, limit);

            expect(verdict.remaining).toBeGreaterThanOrEqual(0);
            expect(verdict.remaining).toBeLessThanOrEqual(limit);
            // Admitted: no wait. Refused: at least 1 s, enough to be admitted then, and no more
            // than needed (one second earlier is still too soon).
            const retryAtMs = nowMs + verdict.retryAfterSeconds * 1_000;
            const isAdmittedAt = (atMs: number): boolean =>
              hitSlidingLogs([[...probe]], [limit], atMs, WINDOW_MS).allowed;
            expect(
              verdict.allowed ? verdict.retryAfterSeconds === 0 : verdict.retryAfterSeconds >= 1,
            ).toBe(true);
            expect(verdict.allowed || isAdmittedAt(retryAtMs)).toBe(true);
            expect(verdict.allowed || !isAdmittedAt(retryAtMs - 1_000)).toBe(true);
          }
        },
      ),
    );
  });
});

describe(describeWindow.name, () => {
  const cases: Array<{
    name: string;
    state: WindowState;
    limit: number;
    allowed: boolean;
    nowMs: number;
    expected: RateLimitVerdict;
  }> = [
    {
      name: 'the first request of an empty window was admitted',
      state: { count: 1, oldestMs: T0, blockingMs: null },
      limit: 60,
      allowed: true,
      nowMs: T0,
      expected: {
        allowed: true,
        limit: 60,
        remaining: 59,
        resetAtSeconds: T0 / 1000 + 60,
        retryAfterSeconds: 0,
      },
    },
    {
      name: 'the admitted request used the last slot',
      state: { count: 60, oldestMs: T0, blockingMs: null },
      limit: 60,
      allowed: true,
      nowMs: T0 + 30_000,
      expected: {
        allowed: true,
        limit: 60,
        remaining: 0,
        resetAtSeconds: T0 / 1000 + 60,
        retryAfterSeconds: 0,
      },
    },
    {
      name: 'the oldest entry is not on a whole second (Reset rounds up to Unix seconds)',
      state: { count: 3, oldestMs: T0 + 1_500, blockingMs: null },
      limit: 10,
      allowed: true,
      nowMs: T0 + 2_000,
      expected: {
        allowed: true,
        limit: 10,
        remaining: 7,
        resetAtSeconds: T0 / 1000 + 62,
        retryAfterSeconds: 0,
      },
    },
    {
      name: 'the window is empty',
      state: { count: 0, oldestMs: null, blockingMs: null },
      limit: 10,
      allowed: true,
      nowMs: T0 + 250,
      expected: {
        allowed: true,
        limit: 10,
        remaining: 10,
        resetAtSeconds: T0 / 1000 + 61,
        retryAfterSeconds: 0,
      },
    },
    {
      name: 'refused with a fractional wait (Retry-After rounds up)',
      state: { count: 60, oldestMs: T0, blockingMs: T0 },
      limit: 60,
      allowed: false,
      nowMs: T0 + 10_500,
      expected: {
        allowed: false,
        limit: 60,
        remaining: 0,
        resetAtSeconds: T0 / 1000 + 60,
        retryAfterSeconds: 50,
      },
    },
    {
      name: 'refused with less than a second to wait',
      state: { count: 60, oldestMs: T0, blockingMs: T0 },
      limit: 60,
      allowed: false,
      nowMs: T0 + 59_999,
      expected: {
        allowed: false,
        limit: 60,
        remaining: 0,
        resetAtSeconds: T0 / 1000 + 60,
        retryAfterSeconds: 1,
      },
    },
    {
      name: 'the limit is below the count (remaining clamps to 0)',
      state: { count: 5, oldestMs: T0, blockingMs: T0 + 2_000 },
      limit: 3,
      allowed: false,
      nowMs: T0 + 10_000,
      expected: {
        allowed: false,
        limit: 3,
        remaining: 0,
        resetAtSeconds: T0 / 1000 + 60,
        retryAfterSeconds: 52,
      },
    },
  ];

  it.each(cases)(
    'should describe the window when $name',
    ({ state, limit, allowed, nowMs, expected }) => {
      expect(describeWindow(state, limit, allowed, nowMs, WINDOW_MS)).toEqual(expected);
    },
  );

  it('should give X-RateLimit-Reset in Unix seconds, not milliseconds, when given real timestamps', () => {
    const verdict = describeWindow(
      { count: 1, oldestMs: T0, blockingMs: null },
      60,
      true,
      T0,
      WINDOW_MS,
    );

    expect(Number.isInteger(verdict.resetAtSeconds)).toBe(true);
    expect(new Date(verdict.resetAtSeconds * 1000).toISOString()).toBe('2025-01-01T00:01:00.000Z');
  });
});

describe(pickBindingWindow.name, () => {
  it.each([
    {
      name: 'there is one window',
      verdicts: [verdictOf({ limit: 60, remaining: 12 })],
      expected: 0,
    },
    {
      name: 'all windows admitted (fewest remaining wins)',
      verdicts: [verdictOf({ limit: 600, remaining: 590 }), verdictOf({ limit: 10, remaining: 4 })],
      expected: 1,
    },
    {
      name: 'all windows admitted and tie on remaining (first wins)',
      verdicts: [verdictOf({ limit: 60, remaining: 4 }), verdictOf({ limit: 10, remaining: 4 })],
      expected: 0,
    },
    {
      name: 'one window refused and the other admitted',
      verdicts: [
        verdictOf({ limit: 600, remaining: 0 }),
        verdictOf({ allowed: false, limit: 10, remaining: 0, retryAfterSeconds: 7 }),
      ],
      expected: 1,
    },
    {
      name: 'several windows refused (longest Retry-After wins)',
      verdicts: [
        verdictOf({ allowed: false, limit: 600, remaining: 0, retryAfterSeconds: 3 }),
        verdictOf({ allowed: false, limit: 10, remaining: 0, retryAfterSeconds: 41 }),
      ],
      expected: 1,
    },
  ])('should pick the binding window when $name', ({ verdicts, expected }) => {
    expect(pickBindingWindow(verdicts)).toBe(verdicts[expected]);
  });

  it('should report the full bulk window when a bulk request is refused and the general window has room', () => {
    // How the API throttler composes the three functions for POST /links/bulk.
    const limits = [600, 10];
    const logs = [
      Array.from({ length: 15 }, (_, i) => T0 + i * 1_000),
      Array.from({ length: 10 }, (_, i) => T0 + i * 1_000),
    ];
    const nowMs = T0 + 20_000;

    const decision = hitSlidingLogs(logs, limits, nowMs, WINDOW_MS);
    const verdict = pickBindingWindow(
      decision.windows.map((state, i) =>
        describeWindow(state, limits[i], decision.allowed, nowMs, WINDOW_MS),
      ),
    );

    expect(verdict).toEqual({
      allowed: false,
      limit: 10,
      remaining: 0,
      resetAtSeconds: T0 / 1000 + 60,
      retryAfterSeconds: 40,
    });
  });
});

describe('binding window of a refused bulk request', () => {
  it('should name the full bulk window when both waits round to one second', () => {
    const t0 = 1_700_000_000_000;
    const general = Array.from({ length: 15 }, (_, i) => t0 + i * 1000);
    const bulk = Array.from({ length: 10 }, (_, i) => t0 + i * 1000);
    const nowMs = t0 + 59_500;
    const decision = hitSlidingLogs([general, bulk], [600, 10], nowMs, 60_000);
    expect(decision.allowed).toBe(false);
    const verdict = pickBindingWindow(
      decision.windows.map((state, i) => describeWindow(state, [600, 10][i], false, nowMs, 60_000)),
    );
    expect(verdict).toMatchObject({ limit: 10, remaining: 0, retryAfterSeconds: 1 });
  });
});
