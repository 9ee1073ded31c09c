import { Inject, Injectable, Optional } from '@nestjs/common';
import type { KeyEnvironment } from '../common/access/auth-context';
import { Clock } from '../common/clock';
import { FxService } from '../fx/fx.service';
import type { FxSnapshot } from '../fx/math/fx-snapshot';
import { MerchantProfile, ProductCategory } from '../merchants/kb/merchant-profile';
import { MerchantsService } from '../merchants/merchants.service';
import { NetworkAccountsService } from '../networks/network-accounts.service';
import { RouteRequestDto } from './dto/route-request.dto';
import { ROUTE_LEARNING_SOURCE, type RouteLearningSource } from './route-learning-source';
import { decideRoute, toAffiliateIds, toLinkRoutingInput } from './engine';
import { RouteResponse, toRouteResponse } from './route.response';
import type {
  AffiliateIds,
  DeviceType,
  LinkProbes,
  NetworkOverridePin,
  RoutableLink,
  RoutingDecision,
  RouteLearning,
  RoutingPresetId,
  UtmOverride,
  VisitorContext,
} from './engine';

/** A routing question as the API asks it: a URL for a creator, and who the visitor is. */
export interface RouteQuestion {
  originalUrl: string;
  visitorCountry?: string | null;
  deviceType?: DeviceType | null;
  preset?: RoutingPresetId;
  category?: ProductCategory | null;
  passthrough?: boolean;
  networkOverride?: NetworkOverridePin | null;
  utmOverride?: UtmOverride | null;
  probes?: LinkProbes;
}

export interface RouteAnswer {
  decision: RoutingDecision;
  merchant: MerchantProfile | null;
}

export interface RoutingContext {
  fx: FxSnapshot;
  accounts: AffiliateIds;
  nowMs: number;
  /** The creator routes `learned`: the blend's settings and observations. */
  learning?: RouteLearning;
}

const NEW_LINK_PROBES: LinkProbes = { deepLinkStatus: 'unchecked', healthStatus: 'unknown' };

/**
 * Feeds the pure engine: the merchant owning the URL's host, the latest FX rates and the
 * creator's network accounts. Used by POST /route and by link creation.
 */
@Injectable()
export class RoutingService {
  constructor(
    private readonly merchants: MerchantsService,
    private readonly fx: FxService,
    private readonly networkAccounts: NetworkAccountsService,
    private readonly clock: Clock,
    @Optional()
    @Inject(ROUTE_LEARNING_SOURCE)
    private readonly learningSource: RouteLearningSource | null = null,
  ) {}

  async decide(
    creatorId: string,
    environment: KeyEnvironment,
    question: RouteQuestion,
  ): Promise<RouteAnswer> {
    return this.decideWith(await this.prepare(creatorId, environment), question);
  }

  /**
   * What every decision for one creator shares; fetched once for a whole bulk request. The
   * environment chooses whose clicks and commissions a `learned` creator's routes learn from.
   */
  async prepare(creatorId: string, environment: KeyEnvironment): Promise<RoutingContext> {
    const [fx, accounts, learning] = await Promise.all([
      this.fx.getLatestSnapshot(),
      this.affiliateIdsOf(creatorId),
      this.learningSource?.learningFor(creatorId, environment),
    ]);
    return {
      fx,
      accounts,
      nowMs: this.clock.nowMs(),
      ...(learning === undefined ? {} : { learning }),
    };
  }

  decideWith(
    { fx, accounts, nowMs, learning }: RoutingContext,
    question: RouteQuestion,
  ): RouteAnswer {
    const merchant = this.merchantOf(question.originalUrl);
    const visitor: VisitorContext = {
      country: question.visitorCountry ?? null,
      device: question.deviceType ?? 'desktop',
      os: null,
      isInAppBrowser: false,
    };
    const link = toLinkRoutingInput(routableLinkOf(question), merchant, accounts, learning);
    return { decision: decideRoute(link, visitor, fx, nowMs), merchant };
  }

  /** POST /route: the engine's answer for a URL and a visitor; nothing stored or counted. */
  async route(
    creatorId: string,
    environment: KeyEnvironment,
    request: RouteRequestDto,
  ): Promise<RouteResponse> {
    const { decision } = await this.decide(creatorId, environment, request);
    return toRouteResponse(decision, request.includeCrcTrace === true);
  }

  /** The knowledge-base profile owning the URL's hostname, if any. */
  merchantOf(url: string): MerchantProfile | null {
    let hostname: string;
    try {
      hostname = new URL(url).hostname;
    } catch {
      return null;
    }
    return this.merchants.knowledgeBase.resolveHost(hostname)?.profile ?? null;
  }

  /** The creator's active affiliate ids, read as the edge reads them. */
  async affiliateIdsOf(creatorId: string): Promise<AffiliateIds> {
    const accounts = await this.networkAccounts.readActiveAffiliateIds([creatorId]);
    return toAffiliateIds(accounts.get(creatorId) ?? []);
  }
}

/** A question's link as the engine's input builder takes it: unset settings are the defaults. */
function routableLinkOf(question: RouteQuestion): RoutableLink {
  return {
    originalUrl: question.originalUrl,
    preset: question.preset ?? 'default',
    category: question.category ?? null,
    passthrough: question.passthrough ?? false,
    networkOverride: question.networkOverride ?? null,
    utmOverride: question.utmOverride ?? null,
    probes: question.probes ?? NEW_LINK_PROBES,
  };
}
