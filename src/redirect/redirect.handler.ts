import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { newUlid } from '../common/ids';
import { ClickAdmission, EDGE_WINDOW_MS, QuotaService } from '../clicks/quota.service';
import {
  ClickRecordMessage,
  ClickRecordTemplate,
  PerClickFields,
} from '../analytics/click-record-codec';
import type { ExcludedHitReason } from '../analytics/excluded-hits';
import { clickSourceOf } from '../analytics/click-source';
import { VisitorHasherService } from '../analytics/visitor-hasher.service';
import { ExcludedHit, ExcludedHitsLedgerService } from '../analytics/excluded-hits-ledger.service';
import { Clock } from '../common/clock';
import { InjectConfig } from '../config/config.module';
import { RedirectConfig } from '../config/env';
import { FxService } from '../fx/fx.service';
import type { FxSnapshot } from '../fx/math/fx-snapshot';
import type { MerchantProfile } from '../merchants/kb/merchant-profile';
import { MerchantsService } from '../merchants/merchants.service';
import type { RouteLearning } from '../routing/engine';
import type { RoutingTrace, VisitorContext } from '../routing/engine/routing-types';
import { ClickRoute, ClickRouter } from './click-router';
import { CreatorEdgeProfile, CreatorEdgeProfilesService } from './creator-edge-profiles.service';
import type { EdgeAnswer } from './edge-answer';
import { forwardVisitorQuery } from './forward-visitor-query';
import { LinkRecordsService } from './link-records.service';
import type { LinkRoutingRecord } from '../links/link-routing-record';
import { destinationRecordOf } from '../links/link-destination';
import { matchingRuleIndex, primaryLanguageOf, ruleDeviceOf, RuleVisitor } from './redirect-rules';
import { userAgentFacts } from './user-agent';
import { explorationLaneFor } from './exploration-draw';
import { isExpiredAt } from '../links/link-limits';
import { RouteLearningService } from './route-learning.service';
import { EdgeVisitor, readVisitor } from './visitor-context';

/** What a link preview answers: the route a counted click takes, and the engine's trace. */
export interface LinkPreview {
  route: ClickRoute;
  trace: RoutingTrace | null;
  /** The redirect rule whose destination the route is; null: the link's own. */
  ruleIndex: number | null;
}

/** One visitor request to the edge, as either server front (Fastify or raw node:http) reads it. */
export interface EdgeRequest {
  linkId: string;
  /** The query string of /r/:id?…, without `?`; '' when none (forwarded when the link asks). */
  query: string;
  isHead: boolean;
  headers: IncomingHttpHeaders;
  /** The TCP peer is a trusted proxy: only then are the edge headers believed. */
  isFromTrustedProxy: boolean;
  /** The client as TRUST_PROXY resolves X-Forwarded-For: the per-IP window's key. */
  clientIp: string;
}

/**
 * GET /r/:linkId, the visitor-facing hot path (docs/edge.md "Edge redirector", docs/design.md
 * section 3), in six steps: link record -> visitor (bots, link previews and HEAD requests
 * leave here for the original URL, touching nothing) -> creator profile -> route (memoised
 * engine decision) -> admission (one Redis script applies the edge windows and the quota and
 * records the click) -> answer.
 * The HTTP side, a raw node:http front and a bare Fastify route, is RedirectFronts
 * (redirect-fronts.ts).
 */
@Injectable()
export class RedirectHandler {
  private readonly router = new ClickRouter();
  /**
   * Per record (dropped with it), per route: the router hands out one route object per link
   * and visitor context, so a record has a handful of routes, and the map stays that small.
   */
  private readonly recordTemplates = new WeakMap<
    LinkRoutingRecord,
    Map<ClickRoute, ClickRecordTemplate>
  >();

  constructor(
    @InjectConfig('redirect') private readonly config: RedirectConfig,
    private readonly records: LinkRecordsService,
    private readonly creators: CreatorEdgeProfilesService,
    private readonly merchants: MerchantsService,
    private readonly fx: FxService,
    private readonly quota: QuotaService,
    private readonly excludedHits: ExcludedHitsLedgerService,
    private readonly visitors: VisitorHasherService,
    private readonly learning: RouteLearningService,
    private readonly clock: Clock,
  ) {}

  async answer(request: EdgeRequest): Promise<EdgeAnswer> {
    // The caches answer synchronously when warm; `await` only when a lookup is really pending.
    const found = this.records.find(request.linkId);
    const record = found instanceof Promise ? await found : found;
    if (record === null) return NOT_FOUND;
    // Expiry and click caps: a link with neither pays this one check.
    if (record.limits !== undefined && isExpiredAt(record.limits, this.clock.nowMs())) {
      return this.expiredAnswer(record, request, 'link_expired');
    }

    const edge = this.visitorOf(request);
    if (edge.exclusion !== null) {
      this.excludedHits.record(excludedHitOf(record, edge.exclusion, 0, this.clock.nowMs()));
      return { kind: 'redirect', location: forwardedTo(record, request, record.originalUrl) };
    }

    const profile = this.creators.find(record.creatorId);
    const creator = profile instanceof Promise ? await profile : profile;
    if (creator === null) return NOT_FOUND;

    const nowMs = this.clock.nowMs();
    // Redirect rules pick the destination, routed as the link (docs/redirect-rules.md).
    let ruleIndex: number | null = null;
    let target = record;
    if (record.rules !== undefined) {
      ruleIndex = matchingRuleIndex(record.rules, ruleVisitorOf(request, edge, nowMs));
      if (ruleIndex !== null) {
        target = destinationRecordOf(record, record.rules[ruleIndex].destination);
      }
    }
    const fx = this.fx.peekSnapshot() ?? (await this.fx.getLatestSnapshot());
    const visitorHash = this.visitors.hashOf(
      request.clientIp,
      request.headers['user-agent'],
      nowMs,
    );
    let route: ClickRoute;
    if (creator.routingMode === 'learned') {
      const found = this.learning.find(creator.creatorId, record.environment);
      const learning = found instanceof Promise ? await found : found;
      const lane = explorationLaneFor(learning, edge, visitorHash, record.linkId);
      route = this.routeFor(target, creator, edge, fx, nowMs, learning, lane);
    } else {
      route = this.routeFor(target, creator, edge, fx, nowMs);
    }

    const recordId = newUlid(nowMs);
    const clickRecord = this.recordTemplateOf(target, route, ruleIndex).encode({
      recordId,
      clickedAt: isoTimeOf(nowMs),
      visitorCountry: edge.visitor?.country ?? null,
      deviceClass: edge.visitor?.device ?? 'unknown',
      source: clickSourceOf(request.query),
    });
    const admission = await this.quota.admitClick(
      creator,
      {
        linkId: record.linkId,
        environment: record.environment,
        clientIp: request.clientIp,
        visitorHash,
        record: clickRecord,
        maxClicks: record.limits?.maxClicks ?? null,
      },
      nowMs,
    );

    const refusal = ADMISSION_EXCLUSIONS[admission];
    if (refusal !== undefined) {
      this.excludedHits.record(excludedHitOf(record, refusal, route.normalizedEpcUsd, nowMs));
    }
    if (admission === 'capped') return this.expiredAnswer(record, request, 'click_cap_reached');
    // Click ids to the networks: the one string append of README "Conversions".
    const location =
      route.subIdUrlPrefix !== null && (record.attribution ?? creator.attribution)
        ? route.subIdUrlPrefix + recordId
        : route.url;
    return answerFor(admission, target, location, request);
  }

  /**
   * An expired or capped link's answer (docs/edge.md "Expiry and click caps"): its expired URL,
   * routed for the visitor like any destination (a bot or preview gets the stored route), or
   * 410. Nothing is counted; the ledger counts the hit.
   */
  private async expiredAnswer(
    record: LinkRoutingRecord,
    request: EdgeRequest,
    reason: ExcludedHitReason,
  ): Promise<EdgeAnswer> {
    this.excludedHits.record(excludedHitOf(record, reason, 0, this.clock.nowMs()));
    const destination = record.limits?.expired ?? null;
    if (destination === null) return GONE;
    const profile = this.creators.find(record.creatorId);
    const creator = profile instanceof Promise ? await profile : profile;
    if (creator === null) return NOT_FOUND;
    const fx = this.fx.peekSnapshot() ?? (await this.fx.getLatestSnapshot());
    const expired = destinationRecordOf(record, destination);
    const route = this.routeFor(expired, creator, this.visitorOf(request), fx, this.clock.nowMs());
    return { kind: 'redirect', location: forwardedTo(record, request, route.url) };
  }

  /**
   * Where a counted click of this visitor would go now, through the click path's own steps
   * (link record, creator profile, memoised route) and the engine's trace, but no admission:
   * it counts no click and touches no window. Null for an unknown link or creator.
   */
  async preview(
    linkId: string,
    visitor: VisitorContext,
    ruleAsk: Omit<RuleVisitor, 'country' | 'nowMs'> & { atMs: number | null },
  ): Promise<LinkPreview | null> {
    const found = this.records.find(linkId);
    const record = found instanceof Promise ? await found : found;
    if (record === null) return null;
    const profile = this.creators.find(record.creatorId);
    const creator = profile instanceof Promise ? await profile : profile;
    if (creator === null) return null;
    const nowMs = this.clock.nowMs();
    const fx = this.fx.peekSnapshot() ?? (await this.fx.getLatestSnapshot());
    const edge: EdgeVisitor = { exclusion: null, visitor };
    // A preview has no visitor hash, so it never explores: it shows the best route.
    let learning: RouteLearning | undefined;
    if (creator.routingMode === 'learned') {
      learning = await this.learning.find(creator.creatorId, record.environment);
    }
    const { atMs, ...asked } = ruleAsk;
    const { rules } = record;
    const ruleIndex =
      rules === undefined
        ? null
        : matchingRuleIndex(rules, { ...asked, country: visitor.country, nowMs: atMs ?? nowMs });
    const target =
      rules === undefined || ruleIndex === null
        ? record
        : destinationRecordOf(record, rules[ruleIndex].destination);
    const route = this.routeFor(target, creator, edge, fx, nowMs, learning);
    const merchant = this.merchantOf(target);
    const trace = this.router.trace(target, creator, visitor, merchant, fx, nowMs, learning);
    return { route, trace, ruleIndex };
  }

  /**
   * The encoding of what a link's clicks on one route share, made once per record and route
   * (a rule's destination has a record of its own, so its index is one per record).
   */
  private recordTemplateOf(
    record: LinkRoutingRecord,
    route: ClickRoute,
    ruleIndex: number | null,
  ): ClickRecordTemplate {
    let byRoute = this.recordTemplates.get(record);
    if (byRoute === undefined) {
      byRoute = new Map();
      this.recordTemplates.set(record, byRoute);
    }
    let template = byRoute.get(route);
    if (template === undefined) {
      template = new ClickRecordTemplate(sharedClickFieldsOf(record, route, ruleIndex));
      byRoute.set(route, template);
    }
    return template;
  }

  private visitorOf(request: EdgeRequest): EdgeVisitor {
    return readVisitor(
      {
        userAgent: request.headers['user-agent'],
        country: headerValue(request.headers[this.config.countryHeader]),
        botScore: headerValue(request.headers[this.config.botScoreHeader]),
      },
      request.isFromTrustedProxy,
      request.isHead,
    );
  }

  private routeFor(
    record: LinkRoutingRecord,
    creator: CreatorEdgeProfile,
    edge: EdgeVisitor,
    fx: FxSnapshot,
    nowMs: number,
    learning?: RouteLearning,
    explorationLane: number | null = null,
  ): ClickRoute {
    const merchant = this.merchantOf(record);
    return this.router.route(
      record,
      creator,
      edge.visitor,
      merchant,
      fx,
      nowMs,
      learning,
      explorationLane,
    );
  }

  private merchantOf(record: LinkRoutingRecord): MerchantProfile | null {
    return record.merchantId === null
      ? null
      : (this.merchants.knowledgeBase.find(record.merchantId) ?? null);
  }
}

/** What every click of a link on one route stores alike (the analytics write side decodes it). */
function sharedClickFieldsOf(
  record: LinkRoutingRecord,
  route: ClickRoute,
  ruleIndex: number | null,
): Omit<ClickRecordMessage, keyof PerClickFields> {
  return {
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
    environment: record.environment,
    ruleIndex,
  };
}

/** What a link's redirect rules read of the request (docs/redirect-rules.md). */
function ruleVisitorOf(request: EdgeRequest, edge: EdgeVisitor, nowMs: number): RuleVisitor {
  return {
    country: edge.visitor?.country ?? null,
    device: ruleDeviceOf(userAgentFacts(request.headers['user-agent'])),
    language: primaryLanguageOf(headerValue(request.headers['accept-language'])),
    query: request.query,
    nowMs,
  };
}

let lastIsoTime = { ms: NaN, iso: '' };

/** `new Date(ms).toISOString()`, once per millisecond: under load, clicks share milliseconds. */
function isoTimeOf(ms: number): string {
  if (lastIsoTime.ms !== ms) lastIsoTime = { ms, iso: new Date(ms).toISOString() };
  return lastIsoTime.iso;
}

/** `routed`: the route's URL, with the click's sub-id when attribution is on. */
function answerFor(
  admission: ClickAdmission,
  record: LinkRoutingRecord,
  routed: string,
  request: EdgeRequest,
): EdgeAnswer {
  switch (admission) {
    case 'counted':
    case 'unrecorded':
      return { kind: 'redirect', location: forwardedTo(record, request, routed) };
    case 'quota_exhausted':
    case 'cap_unverified':
    case 'capped':
      // A Free creator at its quota: the visitor still gets the product, uncounted. So does a
      // capped link's visitor while Redis cannot say whether it is capped (why:
      // click-outage-admission.ts). `capped` is answered before, by expiredAnswer.
      return { kind: 'redirect', location: forwardedTo(record, request, record.originalUrl) };
    case 'ip_limited':
    case 'creator_limited':
      return {
        kind: 'too_many_requests',
        location: forwardedTo(record, request, record.originalUrl),
        retryAfterSeconds: EDGE_WINDOW_MS / 1000,
      };
  }
}

const NOT_FOUND: EdgeAnswer = { kind: 'not_found' };
const GONE: EdgeAnswer = { kind: 'gone' };

/** The admissions that serve a visitor without counting, and their ledger reason. */
const ADMISSION_EXCLUSIONS: Partial<Record<ClickAdmission, ExcludedHitReason>> = {
  ip_limited: 'ip_rate_limited',
  creator_limited: 'creator_rate_limited',
  quota_exhausted: 'quota_exhausted',
  cap_unverified: 'cap_unverified',
};

function excludedHitOf(
  record: LinkRoutingRecord,
  reason: ExcludedHitReason,
  epcUsd: number,
  nowMs: number,
): ExcludedHit {
  return {
    linkId: record.linkId,
    creatorId: record.creatorId,
    environment: record.environment,
    reason,
    epcUsd,
    nowMs,
  };
}

/** The destination, with the visitor's query when the link forwards it (README). */
function forwardedTo(record: LinkRoutingRecord, request: EdgeRequest, destination: string): string {
  return record.forwardQuery && request.query !== ''
    ? forwardVisitorQuery(destination, request.query)
    : destination;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
