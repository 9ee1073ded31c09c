import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CreatorsService } from '../account/creators.service';
import type { KeyEnvironment } from '../common/access/auth-context';
import { RefreshingValue } from '../common/cache/refreshing-value';
import { Clock } from '../common/clock';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { InjectConfig } from '../config/config.module';
import { RoutingConfig } from '../config/env';
import { MerchantsService } from '../merchants/merchants.service';
import { NETWORK_IDS, type NetworkId } from '../networks/network-ids';
import { observedRoutesFrom, type RouteFigure, type RouteLearning } from '../routing/engine';
import type { RouteLearningSource } from '../routing/route-learning-source';
import {
  REALISED_EPC_SOURCE,
  type RealisedEpcRoute,
  type RealisedEpcSource,
} from './realised-epc-source';

const DAY_MS = 86_400_000;
/** Creators whose observations are held: those routing `learned`, clicked lately. */
const CREATORS_HELD = 10_000;
const FAILURE_MESSAGE = 'Reading realised EPC for learned routing failed; serving the last figures';

/**
 * Learned routing's input per creator and environment (docs/routing.md section 10): the blend's
 * settings and the creator's clicks and commission per route over the trailing window, held in
 * memory and read again in the background once `ROUTING_STATS_REFRESH_S` old, so a click never
 * waits for the database except the first of a creator on this server. A hinted creator costs
 * nothing here: the edge asks only for creators whose profile says `learned`.
 *
 * Each read answers a new object (the engine's decision memo tags it by content, once per
 * object), and an unchanged answer keeps the held one, so memoised routes survive a re-read
 * that found nothing new.
 */
@Injectable()
export class RouteLearningService implements RouteLearningSource {
  private readonly held = new LRUCache<string, RefreshingValue<RouteLearning>>({
    max: CREATORS_HELD,
  });
  private readonly warnings: ThrottledLogger;

  constructor(
    @InjectConfig('routing') private readonly config: RoutingConfig,
    @Inject(REALISED_EPC_SOURCE) private readonly source: RealisedEpcSource,
    private readonly merchants: MerchantsService,
    private readonly creators: CreatorsService,
    private readonly clock: Clock,
  ) {
    this.warnings = new ThrottledLogger(RouteLearningService.name, 60_000, clock);
  }

  /**
   * The edge's read, for a creator its profile says routes `learned`: the held input at once
   * (starting a background re-read when due), or a promise of the first read.
   */
  find(creatorId: string, environment: KeyEnvironment): RouteLearning | Promise<RouteLearning> {
    const value = this.valueOf(creatorId, environment);
    const held = value.peek();
    return held ?? value.get().then((loaded) => loaded ?? this.empty());
  }

  /** The API's read: undefined for a `hinted` creator (or one that does not exist). */
  async learningFor(
    creatorId: string,
    environment: KeyEnvironment,
  ): Promise<RouteLearning | undefined> {
    const [limits] = await this.creators.readEdgeLimits([creatorId]);
    if (limits?.routingMode !== 'learned') return undefined;
    return this.find(creatorId, environment);
  }

  private valueOf(creatorId: string, environment: KeyEnvironment): RefreshingValue<RouteLearning> {
    const key = `${creatorId}|${environment}`;
    let value = this.held.get(key);
    if (value === undefined) {
      value = new RefreshingValue<RouteLearning>({
        load: () => this.read(creatorId, environment),
        refreshAfterMs: this.config.statsRefreshMs,
        clock: this.clock,
        warnings: this.warnings,
        failureMessage: FAILURE_MESSAGE,
        isNewer: (candidate, held) =>
          JSON.stringify(candidate.observed) !== JSON.stringify(held.observed),
      });
      this.held.set(key, value);
    }
    return value;
  }

  private async read(creatorId: string, environment: KeyEnvironment): Promise<RouteLearning> {
    const sinceDay = new Date(this.clock.nowMs() - (this.config.windowDays - 1) * DAY_MS)
      .toISOString()
      .slice(0, 10);
    const merchantIds = this.merchants.knowledgeBase.profiles.map((p) => p.merchantId);
    const routes = await this.source.realisedEpcByRoute(
      creatorId,
      environment,
      merchantIds,
      sinceDay,
    );
    const known = routes.filter(isRoutable);
    return {
      ...this.empty(),
      observed: observedRoutesFrom(
        known.map((route) => figureOf(route, route.clicks)),
        known.map((route) => figureOf(route, route.commissionUsd)),
      ),
    };
  }

  private empty(): RouteLearning {
    return {
      priorClicks: this.config.priorClicks,
      explorationShare: this.config.explorationShare,
      observed: {},
    };
  }
}

const NETWORKS: ReadonlySet<string> = new Set(NETWORK_IDS);

/** A route the engine can score: through a known network, in a region. */
function isRoutable(
  route: RealisedEpcRoute,
): route is RealisedEpcRoute & { networkId: NetworkId; region: string } {
  return route.region !== null && NETWORKS.has(route.networkId);
}

function figureOf(
  route: RealisedEpcRoute & { networkId: NetworkId; region: string },
  value: number,
): RouteFigure {
  return { merchantId: route.merchantId, region: route.region, networkId: route.networkId, value };
}
