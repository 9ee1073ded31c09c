import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { clickSourceOf } from '../analytics/click-source';
import type { ExcludedHitReason } from '../analytics/excluded-hits';
import { ExcludedHit, ExcludedHitsLedgerService } from '../analytics/excluded-hits-ledger.service';
import { VisitorHasherService } from '../analytics/visitor-hasher.service';
import { ClickAdmission, EDGE_WINDOW_MS, QuotaService } from '../clicks/quota.service';
import { Clock } from '../common/clock';
import { newUlid } from '../common/ids';
import { InjectConfig } from '../config/config.module';
import { RedirectConfig } from '../config/env';
import { isExpiredAt } from '../links/link-limits';
import type { LinkRoutingRecord } from '../links/link-routing-record';
import type { RoutingTrace, VisitorContext } from '../routing/engine/routing-types';
import type { ClickRoute } from './click-router';
import type { CreatorEdgeProfile } from './creator-edge-profiles.service';
import type { EdgeAnswer } from './edge-answer';
import { EdgeContext, EdgeReadModel } from './edge-read-model';
import { explorationLaneFor } from './exploration-draw';
import { forwardVisitorQuery } from './forward-visitor-query';
import { matchingRuleIndex, primaryLanguageOf, ruleDeviceOf, RuleVisitor } from './redirect-rules';
import { userAgentFacts } from './user-agent';
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
 * GET /r/:linkId (and a branded domain's slug), the visitor-facing hot path (docs/edge.md
 * "Edge redirector", docs/design.md section 3), in five steps: resolve the link, read the
 * visitor, route the click, track it, respond. What it reads, and the caches it is read
 * from, is the EdgeReadModel's (edge-read-model.ts); the HTTP side, a raw node:http front
 * and a bare Fastify route, is RedirectFronts (redirect-fronts.ts).
 */
@Injectable()
export class RedirectHandler {
  constructor(
    @InjectConfig('redirect') private readonly config: RedirectConfig,
    private readonly edge: EdgeReadModel,
    private readonly quota: QuotaService,
    private readonly excludedHits: ExcludedHitsLedgerService,
    private readonly visitors: VisitorHasherService,
    private readonly clock: Clock,
  ) {}

  async answer(request: EdgeRequest): Promise<EdgeAnswer> {
    const nowMs = this.clock.nowMs();
    // 1. Resolve the link; an expired one answers here (a link with no limits pays one check).
    const found = this.edge.link(request.linkId);
    const link = found instanceof Promise ? await found : found;
    if (link === null) return NOT_FOUND;
    if (link.limits !== undefined && isExpiredAt(link.limits, nowMs)) {
      return this.expiredAnswer(link, request, 'link_expired', nowMs);
    }

    // 2. Read the visitor: bots, link previews and HEAD requests leave for the original URL,
    // counted nowhere but the excluded-hit ledger.
    const edge = this.visitorOf(request);
    if (edge.exclusion !== null) {
      this.excludedHits.record(excludedHitOf(link, edge.exclusion, 0, nowMs));
      return { kind: 'redirect', location: forwardedTo(link, request, link.originalUrl) };
    }

    // 3. Route the click: a matching rule's destination or the link's, for this visitor.
    const gathered = this.edge.contextOf(link);
    const context = gathered instanceof Promise ? await gathered : gathered;
    if (context === null) return NOT_FOUND;
    const click = this.routeClick(link, context, edge, request, nowMs);

    // 4. Track it: one admission script applies the edge windows, the quota and the link's
    // cap, and records the click.
    const recordId = newUlid(nowMs);
    const admission = await this.track(click, recordId, edge, request, nowMs);

    // 5. Respond.
    return this.respond(click, admission, recordId, request, nowMs);
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
    const link = await this.edge.link(linkId);
    if (link === null) return null;
    const context = await this.edge.contextOf(link);
    if (context === null) return null;
    const nowMs = this.clock.nowMs();
    const { atMs, ...asked } = ruleAsk;
    const { ruleIndex, target } = this.destinationFor(link, {
      ...asked,
      country: visitor.country,
      nowMs: atMs ?? nowMs,
    });
    // A preview has no visitor hash, so it never explores: it shows the best route.
    const route = this.edge.route(target, context, visitor, nowMs);
    const trace = this.edge.trace(target, context, visitor, nowMs);
    return { route, trace, ruleIndex };
  }

  /** Step 3 once the context is read: the destination and its route, memoised per visitor. */
  private routeClick(
    link: LinkRoutingRecord,
    context: EdgeContext,
    edge: EdgeVisitor,
    request: EdgeRequest,
    nowMs: number,
  ): RoutedClick {
    let ruleIndex: number | null = null;
    let target = link;
    if (link.rules !== undefined) {
      ({ ruleIndex, target } = this.destinationFor(link, ruleVisitorOf(request, edge, nowMs)));
    }
    const visitorHash = this.visitors.hashOf(
      request.clientIp,
      request.headers['user-agent'],
      nowMs,
    );
    // A learned creator's visitors explore other routes now and then (exploration-draw.ts).
    const lane =
      context.learning === undefined
        ? null
        : explorationLaneFor(context.learning, edge, visitorHash, link.linkId);
    const route = this.edge.route(target, context, edge.visitor, nowMs, lane);
    return { link, target, ruleIndex, creator: context.creator, route, visitorHash };
  }

  /** The first matching redirect rule's destination, else the link itself (redirect-rules.ts). */
  private destinationFor(
    link: LinkRoutingRecord,
    visitor: RuleVisitor,
  ): { ruleIndex: number | null; target: LinkRoutingRecord } {
    const rules = link.rules;
    const ruleIndex = rules === undefined ? null : matchingRuleIndex(rules, visitor);
    return rules === undefined || ruleIndex === null
      ? { ruleIndex: null, target: link }
      : { ruleIndex, target: this.edge.destinationOf(link, rules[ruleIndex].destination) };
  }

  /** Step 4: the click's record, admitted (or refused) and recorded by one script. */
  private track(
    click: RoutedClick,
    recordId: string,
    edge: EdgeVisitor,
    request: EdgeRequest,
    nowMs: number,
  ): Promise<ClickAdmission> {
    const record = this.edge.clickTemplateOf(click.target, click.route, click.ruleIndex).encode({
      recordId,
      clickedAt: isoTimeOf(nowMs),
      visitorCountry: edge.visitor?.country ?? null,
      deviceClass: edge.visitor?.device ?? 'unknown',
      source: clickSourceOf(request.query),
    });
    const { link } = click;
    return this.quota.admitClick(
      click.creator,
      {
        linkId: link.linkId,
        environment: link.environment,
        clientIp: request.clientIp,
        visitorHash: click.visitorHash,
        record,
        maxClicks: link.limits?.maxClicks ?? null,
      },
      nowMs,
    );
  }

  /** Step 5: the answer for the admission; a refused click is in the excluded-hit ledger. */
  private respond(
    click: RoutedClick,
    admission: ClickAdmission,
    recordId: string,
    request: EdgeRequest,
    nowMs: number,
  ): EdgeAnswer | Promise<EdgeAnswer> {
    const { link, route } = click;
    const refusal = ADMISSION_EXCLUSIONS[admission];
    if (refusal !== undefined) {
      this.excludedHits.record(excludedHitOf(link, refusal, route.normalizedEpcUsd, nowMs));
    }
    if (admission === 'capped') {
      return this.expiredAnswer(link, request, 'click_cap_reached', nowMs);
    }
    // Click ids to the networks: the one string append of README "Conversions".
    const location =
      route.subIdUrlPrefix !== null && (link.attribution ?? click.creator.attribution)
        ? route.subIdUrlPrefix + recordId
        : route.url;
    return answerFor(admission, click.target, location, request);
  }

  /**
   * An expired or capped link's answer (docs/edge.md "Expiry and click caps"): its expired URL,
   * routed for the visitor like any destination (a bot or preview gets the stored route), or
   * 410. Nothing is counted; the ledger counts the hit.
   */
  private async expiredAnswer(
    link: LinkRoutingRecord,
    request: EdgeRequest,
    reason: ExcludedHitReason,
    nowMs: number,
  ): Promise<EdgeAnswer> {
    this.excludedHits.record(excludedHitOf(link, reason, 0, nowMs));
    const destination = link.limits?.expired ?? null;
    if (destination === null) return GONE;
    const context = await this.edge.contextOf(link);
    if (context === null) return NOT_FOUND;
    // Routed by the hints alone: the expired URL is no route a creator's learning knows.
    const hinted: EdgeContext = { ...context, learning: undefined };
    const expired = this.edge.destinationOf(link, destination);
    const route = this.edge.route(expired, hinted, this.visitorOf(request).visitor, nowMs);
    return { kind: 'redirect', location: forwardedTo(link, request, route.url) };
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
}

/** A click routed: the link, the destination it goes to (a rule's or its own) and the route. */
interface RoutedClick {
  link: LinkRoutingRecord;
  target: LinkRoutingRecord;
  ruleIndex: number | null;
  creator: CreatorEdgeProfile;
  route: ClickRoute;
  visitorHash: string | null;
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
