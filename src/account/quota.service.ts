import { Injectable, Logger } from '@nestjs/common';
import { ClickCountsService } from '../analytics/click-counts.service';
import { KvStore } from '../kv/kv-store';
import { billingPeriodOf } from './billing-period';
import { AdmissionVerdict, ClickAdmissionRequest } from './click-admission';
import {
  CLICK_ADMISSION_SCRIPT,
  clickAdmissionArgs,
  clickAdmissionKeys,
} from './click-admission.script';
import { edgeKeysOf, quotaCounterKey } from './edge-keys';

/** Edge redirector limits (SPEC "Edge redirector limits"). */
export const EDGE_WINDOW_MS = 60_000;
export const EDGE_IP_LIMIT_PER_MINUTE = 200;
/** A quota counter outlives its month by a few days, then Redis drops it. */
const QUOTA_TTL_SECONDS = 40 * 24 * 3600;
/** While the store is down, its failure is logged at most this often, not once per click. */
const STORE_WARNING_INTERVAL_MS = 10_000;

/** What admission needs of a creator: its edge limit and its plan's quota terms. */
export interface QuotaHolder {
  creatorId: string;
  edgeClicksPerMinute: number;
  includedClicks: number;
  /** The plan stops at its included clicks (Free) instead of counting overage. */
  isHardCap: boolean;
}

/** A click's fate: counted, refused by a window or the quota, or served uncounted (store down). */
export type ClickAdmission = Exclude<AdmissionVerdict, 'quota_missing'> | 'unrecorded';

/**
 * The creator's monthly click quota and the edge windows in front of it: one owner for the
 * keys, the admission script and the counter's rebuild from PostgreSQL, so the redirect's
 * admission and the account's usage figures read the same counter.
 */
@Injectable()
export class QuotaService {
  private readonly logger = new Logger('Quota');
  private lastStoreWarningMs = 0;

  constructor(
    private readonly store: KvStore,
    private readonly clickCounts: ClickCountsService,
  ) {}

  /**
   * Admits one click against the per-IP and creator windows and the quota, and appends its
   * serialised record to the click stream, in one round trip (two on the period's first
   * click). If the store is down, the visitor is served and the click is lost.
   */
  async admitClick(
    creator: QuotaHolder,
    clientIp: string,
    record: string,
    nowMs: number,
  ): Promise<ClickAdmission> {
    const period = billingPeriodOf(nowMs);
    const request: ClickAdmissionRequest = {
      keys: edgeKeysOf(creator.creatorId, clientIp, period.id),
      nowMs,
      windowMs: EDGE_WINDOW_MS,
      ipLimit: EDGE_IP_LIMIT_PER_MINUTE,
      creatorLimit: creator.edgeClicksPerMinute,
      includedClicks: creator.includedClicks,
      isHardCap: creator.isHardCap,
      quotaSeed: null,
      quotaTtlSeconds: QUOTA_TTL_SECONDS,
      record,
    };
    try {
      const [first] = await this.runAdmission(request);
      if (first !== 'quota_missing') return first;
      // First click of the period on this Redis (or Redis lost its data): seed the counter
      // from PostgreSQL's count, never from zero, then admit for real.
      const quotaSeed = await this.clickCounts.countSince(creator.creatorId, period.start);
      const [second] = await this.runAdmission({ ...request, quotaSeed });
      return second === 'quota_missing' ? 'unrecorded' : second;
    } catch (error) {
      if (nowMs - this.lastStoreWarningMs > STORE_WARNING_INTERVAL_MS) {
        this.lastStoreWarningMs = nowMs;
        this.logger.warn(`Clicks not recorded, store unavailable: ${String(error)}`);
      }
      return 'unrecorded';
    }
  }

  /**
   * Clicks counted this period: the quota counter the edge admits against, or, before the
   * period's first click (or after Redis lost it), PostgreSQL's count it will be seeded from.
   */
  async usedThisPeriod(creatorId: string, nowMs: number): Promise<number> {
    const period = billingPeriodOf(nowMs);
    const counter = await this.store.getString(quotaCounterKey(creatorId, period.id));
    return counter === null
      ? this.clickCounts.countSince(creatorId, period.start)
      : Number(counter);
  }

  private runAdmission(request: ClickAdmissionRequest): Promise<[AdmissionVerdict, number]> {
    return this.store.runScript(
      CLICK_ADMISSION_SCRIPT,
      clickAdmissionKeys(request),
      clickAdmissionArgs(request),
    );
  }
}
