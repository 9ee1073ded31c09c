import {
  clickDayOf,
  UNIQUE_VISITORS_TTL_SECONDS,
  uniqueVisitorKeys,
} from '../analytics/unique-visitors';
import type { KeyEnvironment, RecordScope } from '../common/access/auth-context';
import { Injectable } from '@nestjs/common';
import { ClickCountsService } from '../analytics/click-counts.service';
import { Clock } from '../common/clock';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { EventOutboxService } from '../events/event-outbox.service';
import { USAGE_WARNING_PERCENTS } from '../events/event-types';
import { KvStore } from '../kv/kv-store';
import { AppMetrics } from '../metrics/app-metrics';
import { BillingPeriod, billingPeriodOf } from '../account/billing-period';
import { ClickOutageAdmission } from './click-outage-admission';
import { AdmissionVerdict, ClickAdmissionRequest } from './click-admission';
import { AdmissionAnswer, ClickAdmissionBatches } from './click-admission-batch';
import {
  batchAnswersOf,
  CLICK_BATCH_ADMISSION_SCRIPT,
  clickBatchKeysAndArgs,
} from './click-admission.script';
import { edgeKeysOf, linkCapKeyOf, quotaCounterKey } from './edge-keys';
import type { ClickUsage } from '../account/click-usage';
import type { PlanId } from '../account/plan.entity';

const isSeedMissing = (verdict: AdmissionVerdict): verdict is 'quota_missing' | 'cap_missing' =>
  verdict === 'quota_missing' || verdict === 'cap_missing';

/** Edge redirector limits (SPEC "Edge redirector limits"). */
export const EDGE_WINDOW_MS = 60_000;
export const EDGE_IP_LIMIT_PER_MINUTE = 200;
/** A quota counter outlives its month by a few days, then Redis drops it. */
export const QUOTA_TTL_SECONDS = 40 * 24 * 3600;
/** While the store is down, its failure is logged at most this often, not once per click. */
const STORE_WARNING_INTERVAL_MS = 10_000;

/** What admission needs of a creator: its edge limit and its plan's quota terms. */
export interface QuotaHolder {
  creatorId: string;
  /** The usage warning names it. */
  planId: PlanId;
  edgeClicksPerMinute: number;
  includedClicks: number;
  /** The plan stops at its included clicks (Free) instead of counting overage. */
  isHardCap: boolean;
}

/** One click the edge asks to count. */
export interface ClickToAdmit {
  linkId: string;
  /** The link's: test clicks count in the test environment's window and counter. */
  environment: KeyEnvironment;
  clientIp: string;
  /** The visitor's keyed hash for unique-visitor counting; null when unknown. */
  visitorHash: string | null;
  /** The click record, serialised, for the click stream. */
  record: string;
  /** The link's click cap; null: none (docs/edge.md "Expiry and click caps"). */
  maxClicks: number | null;
}

/**
 * A click's fate: counted, refused by a window, the quota or the link's cap, or served
 * uncounted (store down; `cap_unverified`: a capped link's click while Redis is unreachable).
 */
export type ClickAdmission =
  Exclude<AdmissionVerdict, 'quota_missing' | 'cap_missing'> | 'unrecorded' | 'cap_unverified';

/**
 * The creator's monthly click quota and the edge windows in front of it: one owner for the
 * keys, the admission script and the counter's rebuild from PostgreSQL, so the redirect's
 * admission and the account's usage figures read the same counter.
 */
@Injectable()
export class QuotaService implements ClickUsage {
  private readonly storeWarnings: ThrottledLogger;
  /** One script call per event-loop turn (per hash slot on a cluster), not one per click. */
  private readonly admissions: ClickAdmissionBatches;

  constructor(
    private readonly store: KvStore,
    private readonly clickCounts: ClickCountsService,
    private readonly events: EventOutboxService,
    private readonly outage: ClickOutageAdmission,
    private readonly metrics: AppMetrics,
    clock: Clock,
  ) {
    this.storeWarnings = new ThrottledLogger('Quota', STORE_WARNING_INTERVAL_MS, clock);
    // Every key of a click carries its creator's shard tag: on a cluster, a shard's clicks
    // share a slot, so they may share a call; elsewhere every click may.
    this.admissions = new ClickAdmissionBatches(
      (requests) => this.sendAdmissions(requests),
      store.scriptsSpanSlots() ? () => '' : (request) => request.keys.stream,
    );
  }

  /**
   * Admits one click against the per-IP and creator windows and the quota, and appends its
   * serialised record to the click stream, in one round trip (two on the period's first
   * click). If the store is down, ClickOutageAdmission applies the same rules in-process and
   * spools the click to disk until Redis is back. A test
   * link's click (the sandbox) counts in the test environment's own creator window and
   * counter, and is never refused for quota: the live quota and usage never see it.
   */
  async admitClick(
    creator: QuotaHolder,
    click: ClickToAdmit,
    nowMs: number,
  ): Promise<ClickAdmission> {
    const { environment } = click;
    const period = billingPeriodOf(nowMs);
    const visitorSets = uniqueVisitorKeys(
      creator.creatorId,
      environment,
      click.linkId,
      clickDayOf(nowMs),
    );
    let request: ClickAdmissionRequest = {
      keys: edgeKeysOf(creator.creatorId, environment, click.clientIp, period.id),
      nowMs,
      windowMs: EDGE_WINDOW_MS,
      ipLimit: EDGE_IP_LIMIT_PER_MINUTE,
      creatorLimit: creator.edgeClicksPerMinute,
      includedClicks: creator.includedClicks,
      isHardCap: environment === 'live' && creator.isHardCap,
      quotaSeed: null,
      quotaTtlSeconds: QUOTA_TTL_SECONDS,
      record: click.record,
      uniqueVisitor: {
        hash: click.visitorHash,
        linkKey: visitorSets.link,
        creatorKey: visitorSets.creator,
        ttlSeconds: UNIQUE_VISITORS_TTL_SECONDS,
      },
      linkCap:
        click.maxClicks === null
          ? null
          : {
              key: linkCapKeyOf(creator.creatorId, click.linkId),
              maxClicks: click.maxClicks,
              seed: null,
            },
    };
    try {
      let [verdict, used] = await this.admissions.admit(request);
      // Seeds asked for one at a time: the quota's, then a capped link's (each at most once).
      for (let asked = 0; asked < 2 && isSeedMissing(verdict); asked++) {
        // First click of the period (or of a capped link) on this Redis, or Redis lost its
        // data: seed the counter from PostgreSQL's count, never from zero, then admit for real.
        request = await this.withSeedFor(verdict, request, creator.creatorId, click, period);
        [verdict, used] = await this.admissions.admit(request);
      }
      if (isSeedMissing(verdict)) return 'unrecorded';
      if (verdict === 'counted') this.warnOnThreshold(creator, environment, used, period);
      return verdict;
    } catch (error) {
      // Redis unreachable (its outage is logged once, by the store), or a call failed: the same
      // rules in-process, the click spooled to disk until Redis is back.
      if (this.store.isReachable()) {
        this.storeWarnings.warn('store', 'Click admitted in-process and spooled', error);
      }
      return this.outage.admit(request, creator.creatorId, environment);
    }
  }

  /** The request with the seed the script asked for, counted by PostgreSQL. */
  private async withSeedFor(
    verdict: AdmissionVerdict,
    request: ClickAdmissionRequest,
    creatorId: string,
    click: ClickToAdmit,
    period: BillingPeriod,
  ): Promise<ClickAdmissionRequest> {
    if (verdict === 'cap_missing' && request.linkCap) {
      const seed = await this.clickCounts.countOfLink(creatorId, click.environment, click.linkId);
      return { ...request, linkCap: { ...request.linkCap, seed } };
    }
    const quotaSeed = await this.clickCounts.countSince(creatorId, click.environment, period.start);
    return { ...request, quotaSeed };
  }

  /**
   * Clicks counted this period: the quota counter the edge admits against, or, before the
   * period's first click (or after Redis lost it, or while it is unreachable), PostgreSQL's
   * count it will be seeded from. Each environment has its own: the test one is the sandbox's
   * usage, never billed.
   */
  async usedThisPeriod(scope: RecordScope, nowMs: number): Promise<number> {
    const period = billingPeriodOf(nowMs);
    const counter = await this.store
      .getString(quotaCounterKey(scope.creatorId, scope.environment, period.id))
      .catch(() => null);
    return counter === null
      ? this.clickCounts.countSince(scope.creatorId, scope.environment, period.start)
      : Number(counter);
  }

  /** Forgets the test environment's counters (the sandbox reset); PostgreSQL's count rebuilds. */
  async resetTestUsage(scope: RecordScope, nowMs: number): Promise<void> {
    if (scope.environment !== 'test') throw new Error('Only test usage can be reset');
    const period = billingPeriodOf(nowMs);
    await this.store.deleteKeys([quotaCounterKey(scope.creatorId, 'test', period.id)]);
  }

  /**
   * `account.usage_warning` at 80% and 100% of the included clicks: the counter is one atomic
   * INCR, so exactly one counted click, on whichever node, sees each threshold value, and
   * that click alone reports it (once per threshold, period and environment). Off the hot
   * path: the outbox write is not awaited. A counter rebuilt from PostgreSQL past a
   * threshold skips it (the click that crossed it was counted before the loss).
   * `data` is the agreed `{threshold, clicksUsed, includedClicks, periodStart, periodEnd,
   * plan}`, with the earlier `thresholdPercent` and `billingPeriod` beside it through 0.1.x
   * (deprecated, removed in 0.2.0: docs/webhooks.md "Webhooks").
   */
  private warnOnThreshold(
    creator: QuotaHolder,
    environment: KeyEnvironment,
    used: number,
    period: BillingPeriod,
  ): void {
    for (const percent of USAGE_WARNING_PERCENTS) {
      const threshold = Math.ceil((creator.includedClicks * percent) / 100);
      if (threshold <= 0 || used !== threshold) continue;
      this.events.publishInBackground(
        { creatorId: creator.creatorId, environment },
        'account.usage_warning',
        {
          threshold: percent,
          clicksUsed: used,
          includedClicks: creator.includedClicks,
          periodStart: period.start,
          periodEnd: period.end,
          plan: creator.planId,
          thresholdPercent: percent,
          billingPeriod: period.id,
        },
      );
    }
  }

  private async sendAdmissions(
    requests: readonly ClickAdmissionRequest[],
  ): Promise<AdmissionAnswer[]> {
    const sentAtMs = performance.now();
    const { keys, args } = clickBatchKeysAndArgs(requests);
    const reply = await this.store.runScript(CLICK_BATCH_ADMISSION_SCRIPT, keys, args);
    // Only answered calls: a refused or cut call goes to the outage path, timed by nothing.
    this.metrics.observeAdmissionRoundTrip(sentAtMs);
    return batchAnswersOf(reply);
  }
}
