import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { RefreshingValue } from '../common/cache/refreshing-value';
import { Clock } from '../common/clock';
import { setDeclaredOriginCheck } from '../common/http/http-hooks';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** Another node's endpoint change reaches this one's CORS within about this long. */
const REFRESH_AFTER_MS = 5_000;

/**
 * The browser origins Enterprise creators declared on their webhook endpoints
 * (`allowedOrigins`), admitted by CORS on authenticated endpoints beside CORS_ORIGINS
 * (Authentication item 9). A preflight carries no key, so the set is every enabled
 * endpoint's origins, held in memory and refreshed in the background.
 */
@Injectable()
export class WebhookOriginsService implements OnApplicationBootstrap {
  private readonly origins: RefreshingValue<ReadonlySet<string>>;

  constructor(
    endpoints: WebhookEndpointsRepository,
    clock: Clock,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.origins = new RefreshingValue<ReadonlySet<string>>({
      load: async () => new Set(await endpoints.findDeclaredOrigins()),
      refreshAfterMs: REFRESH_AFTER_MS,
      clock,
      warnings: new ThrottledLogger('WebhookOrigins', 60_000, clock),
      failureMessage: 'Loading webhook origins failed',
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (fastify !== undefined) {
      setDeclaredOriginCheck(fastify, (origin) => this.isDeclared(origin));
    }
    await this.origins.refresh().catch(() => undefined);
  }

  isDeclared(origin: string): boolean {
    return this.origins.peek()?.has(origin) ?? false;
  }

  /** After a change in this process: reload now (awaited, so the next request sees it). */
  async changed(): Promise<void> {
    // The first call may join a load that read before this change; the second starts after it.
    await this.origins.refresh().catch(() => undefined);
    await this.origins.refresh().catch(() => undefined);
  }
}
