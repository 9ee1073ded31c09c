import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerModuleOptions,
  ThrottlerRequest,
  ThrottlerStorage,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IS_PUBLIC } from '../common/access/access.decorators';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { pickBindingWindow, RateLimitVerdict } from './sliding-log';
import {
  SlidingWindowThrottlerStorage,
  toThrottlerRecord,
} from './sliding-window-throttler.storage';
import type { WindowSpec } from './sliding-windows';

/** One window a request counts in, as the base guard resolved it. */
interface PendingWindow extends WindowSpec {
  ttlMs: number;
  tracker: string;
}

function rateLimitHeaders(verdict: RateLimitVerdict): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(verdict.limit),
    'X-RateLimit-Remaining': String(verdict.remaining),
    'X-RateLimit-Reset': String(verdict.resetAtSeconds),
  };
}

/**
 * The per-key API rate limits (docs/limits.md) on @nestjs/throttler: one named
 * throttler per bucket (rate-limit.module.ts), chosen per route with @Throttle/@SkipThrottle.
 * Registered after the API gate (app.module.ts), which authenticates: the key's id is the
 * tracker and its plan row gives the limits (planRateLimit).
 *
 * The base guard resolves which throttlers apply and their limits; handleRequest here only
 * collects those windows, and canActivate hits them together in one atomic script, so a bulk
 * request refused by the bulk window is not counted in the general one either. The answer is
 * the binding window's: X-RateLimit-* without the library's per-throttler suffix, and 429
 * RATE_LIMIT_EXCEEDED with Retry-After in the spec's envelope, not ThrottlerException.
 */
@Injectable()
export class ApiThrottlerGuard extends ThrottlerGuard {
  private readonly pendingWindows = new WeakMap<ExecutionContext, PendingWindow[]>();
  private readonly slidingWindows: SlidingWindowThrottlerStorage;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly clock: Clock,
  ) {
    super(options, storage, reflector);
    if (!(storage instanceof SlidingWindowThrottlerStorage)) {
      throw new Error('ApiThrottlerGuard needs the sliding-window storage of RateLimitModule');
    }
    this.slidingWindows = storage;
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const windows: PendingWindow[] = [];
    this.pendingWindows.set(context, windows);
    try {
      await super.canActivate(context);
    } finally {
      this.pendingWindows.delete(context);
    }
    if (windows.length === 0) return true;
    const windowMs = windows[0].ttlMs;
    // One script call takes one window length; the API buckets are all 60 s.
    if (windows.some((window) => window.ttlMs !== windowMs)) {
      throw new Error('The API throttlers of one route must share their ttl');
    }
    const verdicts = await this.slidingWindows.hitTogether(windows, windowMs);
    const verdict = pickBindingWindow(verdicts);
    void context.switchToHttp().getResponse<FastifyReply>().headers(rateLimitHeaders(verdict));
    if (!verdict.allowed) {
      const window = windows[verdicts.indexOf(verdict)];
      await this.throwThrottlingException(context, {
        ...toThrottlerRecord(verdict, this.clock.nowMs()),
        limit: window.limit,
        ttl: window.ttlMs,
        key: window.key,
        tracker: window.tracker,
      });
    }
    return true;
  }

  /** Public routes (GET /health) have no key to count. */
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    return Promise.resolve(this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true);
  }

  /** Collects one window for canActivate; an Infinity limit is a bucket the plan leaves open. */
  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, getTracker, generateKey } = request;
    const pending = this.pendingWindows.get(context);
    if (pending === undefined)
      throw new Error('ApiThrottlerGuard.handleRequest outside canActivate');
    if (!Number.isFinite(limit)) return true;
    const tracker = await getTracker(context.switchToHttp().getRequest<FastifyRequest>(), context);
    const key = generateKey(context, tracker, throttler.name ?? 'default');
    pending.push({ key, limit, ttlMs: ttl, tracker });
    return true;
  }

  /** The API key's id, which the API gate set on the request. */
  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    const auth = (request as unknown as FastifyRequest).auth;
    if (auth === undefined) {
      throw new Error('ApiThrottlerGuard ran before the API gate authenticated the request');
    }
    return Promise.resolve(auth.keyId);
  }

  /** `rl:{keyId}:general`: the hash tag keeps one key's windows in one Redis Cluster slot. */
  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    name: string,
  ): string {
    return `rl:{${tracker}}:${name}`;
  }

  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const retryAfterSeconds = detail.timeToBlockExpire;
    return Promise.reject(
      new AppError(
        ErrorCode.RATE_LIMIT_EXCEEDED,
        `Rate limit of ${detail.limit} requests per minute exceeded for this API key; retry in ${retryAfterSeconds} seconds.`,
        undefined,
        { 'Retry-After': String(retryAfterSeconds) },
      ),
    );
  }
}
