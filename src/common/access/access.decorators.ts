import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AuthContext, PlanCapability } from './auth-context';

/**
 * How routes state their access rules. Read by the API gate (auth/api-access.guard.ts) and
 * the API throttler (rate-limit/api-throttler.guard.ts); kept here so every feature's
 * controller can use them without importing either module.
 */
export const IS_PUBLIC = 'linkpilot:isPublic';
export const REQUIRED_CAPABILITY = 'linkpilot:requiredCapability';

/**
 * The API rate-limit buckets, one named @nestjs/throttler throttler each (docs/limits.md). `general` counts every authenticated route; a route opts into `route` or `bulk`
 * with `@Throttle({ route: { limit: planRateLimit('routeRequestsPerMinute') } })`, and leaves
 * `general` with `@SkipThrottle({ general: true })`.
 */
export type RateLimitBucket = 'general' | 'route' | 'bulk';

/** The plan row's per-minute limit columns. */
export type PlanRateLimit =
  'apiRequestsPerMinute' | 'routeRequestsPerMinute' | 'bulkRequestsPerMinute';

/**
 * A throttler limit resolver: the caller's limit from its plan row (set on the request by the
 * API gate, which runs first). No limit (Infinity, counted nowhere) when the plan sets none.
 */
export const planRateLimit =
  (column: PlanRateLimit) =>
  (context: ExecutionContext): number =>
    context.switchToHttp().getRequest<FastifyRequest>().auth?.plan[column] ??
    Number.POSITIVE_INFINITY;

/** No API key needed (GET /health only). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/**
 * Routes for plans whose row grants the capability (bulk: `hasBulkAccess`); other plans get
 * 403 ENTERPRISE_TIER_REQUIRED, since only Enterprise grants them today.
 */
export const RequiresPlanCapability = (
  capability: Exclude<PlanCapability, 'hasApiAccess'>,
): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_CAPABILITY, capability);

/** The authenticated caller of this request. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const auth = context.switchToHttp().getRequest<FastifyRequest>().auth;
  if (auth === undefined) throw new Error('Caller used on a route without authentication');
  return auth;
});

export type { AuthContext };
