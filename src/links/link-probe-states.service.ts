import { Injectable } from '@nestjs/common';
import { LinkEventsService } from './link-events.service';
import {
  ExpiryCutoffs,
  LinkProbeStatesRepository,
  ProbeOutcome,
  ProbeTarget,
  SweepScope,
} from './link-probe-states.repository';

export type { ExpiryCutoffs, ProbeOutcome, ProbeTarget, SweepScope };

/**
 * How the probes module reads and writes the probe state of links (deepLinkStatus,
 * healthStatus and their check times): the links module owns the table, probes only report.
 */
@Injectable()
export class LinkProbeStatesService {
  constructor(
    private readonly repository: LinkProbeStatesRepository,
    private readonly events: LinkEventsService,
  ) {}

  /**
   * Stores a probe's verdicts on a live link unless a newer result is stored, and tells the
   * edge caches when it did. Returns false when nothing was written.
   */
  async recordOutcome(linkId: string, outcome: ProbeOutcome): Promise<boolean> {
    const isRecorded = await this.repository.recordOutcome(linkId, outcome);
    if (isRecorded) await this.events.changedById(linkId);
    return isRecorded;
  }

  /** Moves expired deep-link results to ttl_expired and returns the links to probe again. */
  expireDue(cutoffs: ExpiryCutoffs, scope: SweepScope): Promise<ProbeTarget[]> {
    return this.repository.expireDue(cutoffs, scope);
  }

  /** Live links whose probe never landed (see the repository). */
  findStranded(createdBefore: Date, scope: SweepScope): Promise<ProbeTarget[]> {
    return this.repository.findStranded(createdBefore, scope);
  }
}
