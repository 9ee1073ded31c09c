import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { RATE_LIMIT_BUCKET } from '../rate-limit/rate-limit.decorator';
import { RateLimitBucket, RateLimitService } from '../rate-limit/rate-limit.service';
import { ApiKeysService } from './api-keys.service';
import { IS_PUBLIC, REQUIRES_ENTERPRISE } from './access.decorators';

/**
 * The gate of every API route, in the order the spec's Authentication part implies:
 * key (401) -> plan tier and IP allowlist (403) -> the key's rate limit (429).
 * `request.ip` is the client as seen after trusted proxies only (TRUST_PROXY).
 */
@Injectable()
export class ApiAccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly rateLimits: RateLimitService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();

    const auth = await this.apiKeys.authenticate(request.headers.authorization, request.ip);
    if (
      this.reflector.getAllAndOverride<boolean>(REQUIRES_ENTERPRISE, targets) &&
      auth.plan.id !== 'enterprise'
    ) {
      throw new AppError(
        ErrorCode.ENTERPRISE_TIER_REQUIRED,
        `This endpoint needs the Enterprise plan; this key's account is on ${auth.plan.displayName}.`,
      );
    }
    const bucket =
      this.reflector.get<RateLimitBucket | undefined>(RATE_LIMIT_BUCKET, context.getHandler()) ??
      'general';
    const headers = await this.rateLimits.admit(bucket, auth.keyId, auth.plan);
    void reply.headers(headers);
    request.auth = auth;
    return true;
  }
}
