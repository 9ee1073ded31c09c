import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AuthContext, PlanCapability } from './auth-context';

/**
 * How routes state their access rules. Read by the API gate (auth/api-access.guard.ts); kept
 * here so every feature's controller can use them without importing the auth module.
 */
export const IS_PUBLIC = 'linkpilot:isPublic';
export const REQUIRED_CAPABILITY = 'linkpilot:requiredCapability';
export const RATE_LIMIT_BUCKET = 'linkpilot:rateLimitBucket';

/** The API rate-limit buckets (README "Plans and limits"). */
export type RateLimitBucket = 'general' | 'route' | 'bulk';

/** No API key needed (GET /health only). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/**
 * Routes for plans whose row grants the capability (bulk: `hasBulkAccess`); other plans get
 * 403 ENTERPRISE_TIER_REQUIRED, since only Enterprise grants them today.
 */
export const RequiresPlanCapability = (
  capability: Exclude<PlanCapability, 'hasApiAccess'>,
): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_CAPABILITY, capability);

/** Counts the route in a bucket other than the general one (`route`, `bulk`). */
export const UseRateLimitBucket = (bucket: RateLimitBucket): MethodDecorator =>
  SetMetadata(RATE_LIMIT_BUCKET, bucket);

/** The authenticated caller of this request. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const auth = context.switchToHttp().getRequest<FastifyRequest>().auth;
  if (auth === undefined) throw new Error('Caller used on a route without authentication');
  return auth;
});

export type { AuthContext };
