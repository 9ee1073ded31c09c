import { Injectable, Logger } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { newUlid } from '../common/ids';
import { billingPeriodOf } from '../account/billing-period';
import { ClickCountsService } from '../analytics/click-counts.service';
import { ClickRecordMessage, encodeClickRecord } from '../analytics/click-record-codec';
import { Clock } from '../common/clock';
import { InjectConfig } from '../config/config.module';
import { RedirectConfig } from '../config/env';
import { FxService } from '../fx/fx.service';
import type { FxSnapshot } from '../fx/math/fx-snapshot';
import { edgeKeysOf } from '../kv/edge-keys';
import { KvStore } from '../kv/kv-store';
import { MerchantsService } from '../merchants/merchants.service';
import { ClickRoute, ClickRouter } from './click-router';
import { CreatorEdgeProfile, CreatorEdgeProfilesService } from './creator-edge-profiles.service';
import type { EdgeAnswer } from './edge-answer';
import { LinkRecordsService } from './link-records.service';
import type { LinkRoutingRecord } from './link-routing-record';
import { EdgeVisitor, readVisitor } from './visitor-context';

/** Edge redirector limits (SPEC "Edge redirector limits"). */
export const EDGE_WINDOW_MS = 60_000;
export const EDGE_IP_LIMIT_PER_MINUTE = 200;
/** A quota counter outlives its month by a few days, then Redis drops it. */
const QUOTA_TTL_SECONDS = 40 * 24 * 3600;

/** One visitor request to the edge, as either server front (Fastify or raw node:http) reads it. */
export interface EdgeRequest {
  linkId: string;
  isHead: boolean;
  headers: IncomingHttpHeaders;
  /** The TCP peer is a trusted proxy: only then are the edge headers believed. */
  isFromTrustedProxy: boolean;
  /** The client as TRUST_PROXY resolves X-Forwarded-For: the per-IP window's key. */
  clientIp: string;
}

/**
 * GET /r/:linkId, the visitor-facing hot path: record from cache -> visitor context -> route
 * (memoised engine decision) -> one Redis script that applies the edge limits and the quota
 * and records the click -> 302. Bots, link previews and HEAD requests go to the original URL
 * and touch nothing. The HTTP side, a raw node:http front and a bare Fastify route, is
 * RedirectFronts (redirect-fronts.ts).
 */
@Injectable()
export class RedirectHandler {
  private readonly logger = new Logger('Redirect');
  private readonly router = new ClickRouter();
  private lastKvWarningMs = 0;

  constructor(
    @InjectConfig('redirect') private readonly config: RedirectConfig,
    private readonly records: LinkRecordsService,
    private readonly creators: CreatorEdgeProfilesService,
    private readonly merchants: MerchantsService,
    private readonly fx: FxService,
    private readonly store: KvStore,
    private readonly clock: Clock,
    private readonly clickCounts: ClickCountsService,
  ) {}

  async answer(request: EdgeRequest): Promise<EdgeAnswer> {
    // The caches answer synchronously when warm; `await` only when a lookup is really pending.
    const found = this.records.find(request.linkId);
    const record = found instanceof Promise ? await found : found;
    if (record === null) return NOT_FOUND;
    const edge = readVisitor(
      {
        userAgent: request.headers['user-agent'],
        country: headerValue(request.headers[this.config.countryHeader]),
        botScore: headerValue(request.headers[this.config.botScoreHeader]),
      },
      request.isFromTrustedProxy,
      request.isHead,
    );
    // Bots and previews: the original URL, no routing, no count, no limit touched.
    if (edge.isBot) return { kind: 'redirect', location: record.originalUrl };
    const profile = this.creators.find(record.creatorId);
    const creator = profile instanceof Promise ? await profile : profile;
    if (creator === null) return NOT_FOUND;
    const nowMs = this.clock.nowMs();
    const fx = this.fx.peekSnapshot() ?? (await this.fx.getLatestSnapshot());
    const route = this.routeFor(record, creator, edge, fx, nowMs);
    const verdict = await this.admit(record, creator, route, edge, request.clientIp, nowMs);
    switch (verdict) {
      case 'counted':
      case 'unrecorded':
        return { kind: 'redirect', location: route.url };
      case 'quota_exhausted':
        // A Free creator at its quota: the visitor still gets the product, uncounted.
        return { kind: 'redirect', location: record.originalUrl };
      case 'ip_limited':
      case 'creator_limited':
        return {
          kind: 'too_many_requests',
          location: record.originalUrl,
          retryAfterSeconds: EDGE_WINDOW_MS / 1000,
        };
    }
  }

  private routeFor(
    record: LinkRoutingRecord,
    creator: CreatorEdgeProfile,
    edge: EdgeVisitor,
    fx: FxSnapshot,
    nowMs: number,
  ): ClickRoute {
    const merchant =
      record.merchantId === null
        ? null
        : (this.merchants.knowledgeBase.find(record.merchantId) ?? null);
    return this.router.route(record, creator, edge.visitor, merchant, fx, nowMs);
  }

  /** One round trip to the store; if it is down, the visitor is served and the click is lost. */
  private async admit(
    record: LinkRoutingRecord,
    creator: CreatorEdgeProfile,
    route: ClickRoute,
    edge: EdgeVisitor,
    clientIp: string,
    nowMs: number,
  ): Promise<'counted' | 'ip_limited' | 'creator_limited' | 'quota_exhausted' | 'unrecorded'> {
    const clickedAt = new Date(nowMs).toISOString();
    const clickRecord: ClickRecordMessage = {
      recordId: newUlid(nowMs),
      linkId: record.linkId,
      creatorId: record.creatorId,
      merchantId: route.merchantId,
      region: route.region,
      networkId: route.networkId,
      preset: record.preset,
      outcome: route.outcome,
      normalizedEpcUsd: route.normalizedEpcUsd,
      confidence: route.confidence,
      deepLinkUsed: route.deepLinkUsed,
      privateDealApplied: false,
      visitorCountry: edge.visitor?.country ?? null,
      deviceClass: edge.visitor?.device ?? 'unknown',
      clickedAt,
    };
    try {
      const request = {
        keys: edgeKeysOf(record.creatorId, clientIp, billingPeriodOf(nowMs).id),
        nowMs,
        windowMs: EDGE_WINDOW_MS,
        ipLimit: EDGE_IP_LIMIT_PER_MINUTE,
        creatorLimit: creator.edgeClicksPerMinute,
        includedClicks: creator.includedClicks,
        isHardCap: creator.isHardCap,
        quotaSeed: null,
        quotaTtlSeconds: QUOTA_TTL_SECONDS,
        record: encodeClickRecord(clickRecord),
      };
      const first = await this.store.admitClick(request);
      if (first.verdict !== 'quota_missing') return first.verdict;
      // First click of the period on this Redis (or Redis lost its data): seed the counter
      // from PostgreSQL's count, never from zero, then admit for real.
      const quotaSeed = await this.clickCounts.countSince(
        record.creatorId,
        billingPeriodOf(nowMs).start,
      );
      const second = await this.store.admitClick({ ...request, quotaSeed });
      return second.verdict === 'quota_missing' ? 'unrecorded' : second.verdict;
    } catch (error) {
      if (nowMs - this.lastKvWarningMs > 10_000) {
        this.lastKvWarningMs = nowMs;
        this.logger.warn(`Clicks not recorded, store unavailable: ${String(error)}`);
      }
      return 'unrecorded';
    }
  }
}

const NOT_FOUND: EdgeAnswer = { kind: 'not_found' };

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
