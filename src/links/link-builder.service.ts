import type { RecordScope } from '../common/access/auth-context';
import { Injectable } from '@nestjs/common';
import { newUlid } from '../common/ids';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { RoutingReason } from '../routing/engine';
import { RoutingContext, RoutingService } from '../routing/routing.service';
import { CreateLinkDto } from './dto/create-link.dto';
import { toNetworkOverride } from './dto/network-override.dto';
import { routeDestination } from './link-destination';
import { newLinkLimits } from './link-limits';
import { LinkEntity } from './link.entity';
import { LinksRepository } from './links.repository';
import { toStoredRules } from './redirect-rule-writer';
import { titleFromUrl } from './title-from-url';

/** Engine reasons that make a link passthrough whatever the creator asks (SPEC item 6 and 7). */
const FORCED_PASSTHROUGH: Partial<Record<RoutingReason, (host: string) => string>> = {
  unsupported_merchant: (host) =>
    `Unsupported merchant: ${host} is not in the knowledge base, so the link is served as passthrough.`,
  programme_closed: () => "The merchant's affiliate programme is closed; served as passthrough.",
  passthrough_required: () => 'The merchant forbids canonicalising or re-routing its links.',
};

/** Whether a link's passthrough is imposed by the merchant (so it cannot be turned off). */
export const isForcedPassthrough = (routingReason: string): boolean =>
  routingReason in FORCED_PASSTHROUGH;

/**
 * Turns one validated create request into a link row: routes it through the engine, applies
 * the passthrough rules and derives a title. A link created in passthrough stores the
 * passthrough route: routing is bypassed (SPEC lifecycle), and turning passthrough off later
 * keeps that route (routing is not re-evaluated; a new create routes afresh). The engine still
 * runs once without passthrough to learn whether the merchant imposes it and to check a pin.
 */
@Injectable()
export class LinkBuilderService {
  constructor(
    private readonly routing: RoutingService,
    private readonly links: LinksRepository,
  ) {}

  build(scope: RecordScope, request: CreateLinkDto, context: RoutingContext): LinkEntity {
    const pin = request.networkOverride ? toNetworkOverride(request.networkOverride) : null;
    if (pin?.expiresAt !== undefined && Date.parse(pin.expiresAt) <= context.nowMs) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, 'The network override has already expired.', {
        'networkOverride.expiresAt': ['must be in the future'],
      });
    }
    const routingRequest = {
      originalUrl: request.originalUrl,
      visitorCountry: request.visitorCountry,
      deviceType: request.deviceType,
      preset: request.preset,
      category: request.category,
      passthrough: false,
      networkOverride: pin,
      utmOverride: request.utmOverride,
    };
    const routed = this.routing.decideWith(context, routingRequest);
    const { merchant } = routed;
    let { decision } = routed;
    const host = new URL(request.originalUrl).hostname;
    const forcedReason = FORCED_PASSTHROUGH[decision.reason]?.(host);
    if (pin !== null && forcedReason === undefined && decision.networkId !== pin.networkId) {
      throw new AppError(
        ErrorCode.NETWORK_OVERRIDE_UNAVAILABLE,
        `Network ${pin.networkId} has no positive EPC hint for this merchant in the region the link routes to${decision.region ? ` (${decision.region})` : ''}.`,
      );
    }
    const isPassthrough = request.passthrough === true || forcedReason !== undefined;
    if (isPassthrough && forcedReason === undefined) {
      decision = this.routing.decideWith(context, {
        ...routingRequest,
        passthrough: true,
      }).decision;
    }
    const nowDate = new Date(context.nowMs);
    const rules = toStoredRules(this.routing, context, request.rules, {
      ...request,
      networkOverride: pin,
    });
    // Routed like the link, without its pin (it names the link's merchant's network).
    const expiredDestination = request.expiredUrl
      ? routeDestination(this.routing, context, request.expiredUrl, {
          preset: request.preset,
          category: request.category,
          utmOverride: request.utmOverride,
          visitorCountry: request.visitorCountry,
          deviceType: request.deviceType,
        })
      : null;
    return this.links.create({
      id: newUlid(context.nowMs),
      creatorId: scope.creatorId,
      environment: scope.environment,
      title: request.title ?? titleFromUrl(request.originalUrl, merchant?.displayName ?? null),
      originalUrl: request.originalUrl,
      canonicalUrl: decision.canonicalUrl,
      routedUrl: decision.routedUrl,
      merchantId: decision.merchantId,
      region: decision.region,
      networkId: decision.networkId,
      preset: request.preset ?? 'default',
      category: request.category ?? null,
      passthroughEnabled: isPassthrough,
      passthroughReason: isPassthrough ? (request.passthroughReason ?? forcedReason ?? null) : null,
      passthroughEnabledAt: isPassthrough ? nowDate : null,
      networkOverride: pin,
      utmOverride: request.utmOverride ? { ...request.utmOverride } : null,
      groupId: request.groupId ?? null,
      notes: request.notes ?? null,
      forwardQuery: request.forwardQuery ?? false,
      attribution: request.attribution ?? null,
      visitorCountry: request.visitorCountry ?? null,
      deviceType: request.deviceType ?? null,
      outcome: decision.outcome,
      routingReason: decision.reason,
      // The engine's own 0-100 figure for the winner; passthrough has none and stores 0.
      confidence: decision.trace.winner?.confidence ?? 0,
      // Rounded as their numeric columns store them, so the create answer matches later reads.
      confidenceFactor: roundTo(decision.confidenceFactor, 4),
      normalizedEpcUsd: roundTo(decision.normalizedEpcUsd, 6),
      deepLinkUsed: decision.deepLinkUsed,
      crcTrace: decision.trace as unknown as Record<string, unknown>,
      healthStatus: 'unknown',
      deepLinkStatus: 'unchecked',
      deepLinkCheckedAt: null,
      lastHealthCheckAt: null,
      createdAt: nowDate,
      updatedAt: nowDate,
      deletedAt: null,
      rules,
      ...newLinkLimits(request, context.nowMs),
      expiredDestination,
    });
  }
}

function roundTo(value: number, decimals: number): number {
  return Number(value.toFixed(decimals));
}
