import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { ClickCountsService } from '../analytics/click-counts.service';
import type { KeyEnvironment } from '../common/access/auth-context';
import { SingleFlight } from '../common/cache/single-flight';
import { Clock } from '../common/clock';
import { KvStore } from '../kv/kv-store';
import { MemoryKvStore } from '../kv/memory-kv-store';
import { billingPeriodOf } from '../account/billing-period';
import { AdmissionVerdict, ClickAdmissionRequest } from './click-admission';
import {
  CLICK_ADMISSION_SCRIPT,
  clickAdmissionArgs,
  clickAdmissionKeys,
} from './click-admission.script';
import { ClickSpool } from './click-spool';

/**
 * With PostgreSQL out as well, the counter starts from 0 and is asked for again this soon: the
 * windows still apply meanwhile, a hard quota only from 0.
 */
const UNKNOWN_SEED_TTL_SECONDS = 10;

/**
 * A click's fate during an outage: as the script decides it, served but not recorded, or
 * (`cap_unverified`) a capped link's click, never counted here.
 */
export type OutageAdmission =
  Exclude<AdmissionVerdict, 'quota_missing' | 'cap_missing'> | 'unrecorded' | 'cap_unverified';

/**
 * Click admission while Redis is unreachable (QuotaService.admitClick's failure branch): the
 * same rules, the admission script's in-process twin over this node's own store (edge windows
 * per node instead of shared, and a quota counter seeded from PostgreSQL's count like a lost
 * counter is), then each counted click into the spool, answered once it is on disk. Replay
 * (click-spool-replay.service.ts) brings the clicks and their count to Redis when it is back.
 *
 * What the in-process store keeps is for the outage only: it is forgotten when Redis is
 * reachable again, so the next outage seeds its counters afresh. The click's visitor hash
 * goes to the spool, not to the in-process store, whose sets would grow for the whole
 * outage: replay adds it to the unique-visitor counts. A usage warning (80%, 100%) whose
 * threshold is crossed by clicks counted here is not sent: replay raises the counter by many
 * clicks at once, and no click sees the threshold value.
 *
 * A capped link's click is not counted here at all (`cap_unverified`): each node would seed
 * the link's counter from the same PostgreSQL count and count on its own, so together they
 * could pass the cap. Nor is the link treated as expired, as it may be far below its cap.
 * Its visitors go to the original URL uncounted, as a Free creator's at quota do.
 */
@Injectable()
export class ClickOutageAdmission implements OnModuleDestroy {
  private local: MemoryKvStore;
  private readonly seeds = new SingleFlight<string, number | null>();

  constructor(
    store: KvStore,
    private readonly spool: ClickSpool,
    private readonly clickCounts: ClickCountsService,
    private readonly clock: Clock,
  ) {
    this.local = this.newLocalStore();
    store.onReachableAgain(() => {
      void this.local.close();
      this.local = this.newLocalStore();
    });
  }

  onModuleDestroy(): void {
    void this.local.close();
  }

  /** `request` as built for Redis; `environment` the click's (the seed's scope). */
  async admit(
    request: ClickAdmissionRequest,
    creatorId: string,
    environment: KeyEnvironment,
  ): Promise<OutageAdmission> {
    if (request.linkCap) return 'cap_unverified';
    const inProcess: ClickAdmissionRequest = {
      ...request,
      uniqueVisitor: { ...request.uniqueVisitor, hash: null },
    };
    let [verdict] = await this.run(inProcess);
    if (verdict === 'quota_missing') {
      const seed = await this.seedOf(request, creatorId, environment);
      [verdict] = await this.run(
        seed === null
          ? { ...inProcess, quotaSeed: 0, quotaTtlSeconds: UNKNOWN_SEED_TTL_SECONDS }
          : { ...inProcess, quotaSeed: seed },
      );
    }
    if (verdict === 'quota_missing' || verdict === 'cap_missing') return 'unrecorded';
    if (verdict !== 'counted') return verdict;
    // The script's twin appended the record to this store's stream: the spool is its home now.
    void this.local.deleteKeys([request.keys.stream]);
    const isSpooled = await this.spool.append({
      record: request.record,
      visitorHash: request.uniqueVisitor.hash,
    });
    return isSpooled ? 'counted' : 'unrecorded';
  }

  /**
   * PostgreSQL's count for the period, once per counter however many clicks ask at once; null
   * when PostgreSQL cannot say either.
   */
  private seedOf(
    request: ClickAdmissionRequest,
    creatorId: string,
    environment: KeyEnvironment,
  ): Promise<number | null> {
    return this.seeds.run(request.keys.quota, () =>
      this.clickCounts
        .countSince(creatorId, environment, billingPeriodOf(request.nowMs).start)
        .catch(() => null),
    );
  }

  private run(request: ClickAdmissionRequest): Promise<[AdmissionVerdict, number]> {
    return this.local.runScript(
      CLICK_ADMISSION_SCRIPT,
      clickAdmissionKeys(request),
      clickAdmissionArgs(request),
    );
  }

  private newLocalStore(): MemoryKvStore {
    return new MemoryKvStore(() => this.clock.nowMs());
  }
}
