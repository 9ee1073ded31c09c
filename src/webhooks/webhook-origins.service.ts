import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { RefreshingValue } from '../common/cache/refreshing-value';
import { Clock } from '../common/clock';
import { DeclaredOrigins, setDeclaredOrigins } from '../common/http/http-hooks';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** Another node's endpoint change reaches this one's CORS within about this long. */
const REFRESH_AFTER_MS = 5_000;

/** Each declared origin and the creators who declared it. */
type CreatorsByOrigin = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * The browser origins Enterprise creators declared on their webhook endpoints
 * (`allowedOrigins`), admitted by CORS on authenticated endpoints beside CORS_ORIGINS
 * (Authentication item 9): on an actual request only for the keys of the creator who
 * declared it, on a preflight (which carries no key) for anyone's. Held in memory and
 * refreshed in the background.
 */
@Injectable()
export class WebhookOriginsService implements OnApplicationBootstrap, DeclaredOrigins {
  private readonly origins: RefreshingValue<CreatorsByOrigin>;

  constructor(
    endpoints: WebhookEndpointsRepository,
    clock: Clock,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.origins = new RefreshingValue<CreatorsByOrigin>({
      load: async () => groupByOrigin(await endpoints.findDeclaredOrigins()),
      refreshAfterMs: REFRESH_AFTER_MS,
      clock,
      warnings: new ThrottledLogger('WebhookOrigins', 60_000, clock),
      failureMessage: 'Loading webhook origins failed',
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (fastify !== undefined) setDeclaredOrigins(fastify, this);
    await this.origins.refresh().catch(() => undefined);
  }

  isDeclaredByAnyone(origin: string): boolean {
    return this.origins.peek()?.has(origin) ?? false;
  }

  isDeclaredBy(origin: string, creatorId: string): boolean {
    return this.origins.peek()?.get(origin)?.has(creatorId) ?? false;
  }

  /** After a change in this process: reload now (awaited, so the next request sees it). */
  async changed(): Promise<void> {
    // The first call may join a load that read before this change; the second starts after it.
    await this.origins.refresh().catch(() => undefined);
    await this.origins.refresh().catch(() => undefined);
  }
}

function groupByOrigin(rows: { origin: string; creatorId: string }[]): CreatorsByOrigin {
  const byOrigin = new Map<string, Set<string>>();
  for (const { origin, creatorId } of rows) {
    const creators = byOrigin.get(origin) ?? new Set<string>();
    creators.add(creatorId);
    byOrigin.set(origin, creators);
  }
  return byOrigin;
}
