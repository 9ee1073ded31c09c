import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AuthContext } from './auth-context';

export const IS_PUBLIC = 'linkpilot:isPublic';
export const REQUIRES_ENTERPRISE = 'linkpilot:requiresEnterprise';

/** No API key needed (GET /health only). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/** Enterprise-only routes (bulk, webhooks): other plans get 403 ENTERPRISE_TIER_REQUIRED. */
export const RequiresEnterprise = (): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRES_ENTERPRISE, true);

/** The authenticated caller of this request. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const auth = context.switchToHttp().getRequest<FastifyRequest>().auth;
  if (auth === undefined) throw new Error('Caller used on a route without authentication');
  return auth;
});

export type { AuthContext };
