import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { InjectConfig } from '../config/config.module';
import { AuthConfig } from '../config/env';
import { KvStore } from '../kv/kv-store';
import { ApiKeysService } from './api-keys.service';
import { IS_PUBLIC, REQUIRED_CAPABILITY } from '../common/access/access.decorators';
import { AuthContext, PlanCapability } from '../common/access/auth-context';
import { AuthAttempt, FailedAuthThrottle } from './failed-auth-throttle';

/**
 * The gate of every API route, in the order the spec's Authentication part implies, after a
 * brute-force brake: client blocked for failed authentications (429 before any key lookup,
 * unless the key authenticated from that client before) -> key (401) -> plan tier and IP
 * allowlist (403). The key's rate limit (429) is the next global guard,
 * rate-limit/api-throttler.guard.ts, which counts the key set here.
 * `request.ip` is the client as seen after trusted proxies only (TRUST_PROXY).
 */
@Injectable()
export class ApiAccessGuard implements CanActivate {
  private readonly failedAuths: FailedAuthThrottle;

  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    // Built here rather than provided by AuthModule: the CLI imports AuthModule without a
    // key-value store, and only the HTTP gate needs the throttle.
    store: KvStore,
    clock: Clock,
    @InjectConfig('auth') config: AuthConfig,
  ) {
    this.failedAuths = new FailedAuthThrottle(store, clock, config.failuresPerMinute);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();

    const attempt = await this.failedAuths.admit(request.ip, request.headers.authorization);
    const auth = await this.authenticateCountingFailures(request, attempt);
    const capability = this.reflector.getAllAndOverride<PlanCapability | undefined>(
      REQUIRED_CAPABILITY,
      targets,
    );
    if (capability !== undefined && !auth.plan[capability]) {
      throw new AppError(
        ErrorCode.ENTERPRISE_TIER_REQUIRED,
        `This endpoint needs the Enterprise plan; this key's account is on ${auth.plan.displayName}.`,
      );
    }
    request.auth = auth;
    return true;
  }

  /**
   * Only 401s count as failures: a 403 (plan tier, IP allowlist) means the key is genuine, so
   * the caller is not guessing. Only keys that authenticated become known to the client: a 403
   * key is not served from there, so a block has nothing of it to spare.
   */
  private async authenticateCountingFailures(
    request: FastifyRequest,
    attempt: AuthAttempt,
  ): Promise<AuthContext> {
    let auth: AuthContext;
    try {
      auth = await this.apiKeys.authenticate(request.headers.authorization, request.ip);
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.UNAUTHORIZED) {
        await this.failedAuths.recordFailure(attempt);
      }
      throw error;
    }
    await this.failedAuths.recordSuccess(attempt);
    return auth;
  }
}
