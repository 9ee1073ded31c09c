import { Injectable, Logger } from '@nestjs/common';
import { EventOutboxService } from '../events/event-outbox.service';
import { LinkEventsService } from './link-events.service';
import {
  ExpiryCutoffs,
  LinkProbeStatesRepository,
  ProbeOutcome,
  ProbeTarget,
  RecordedProbeChange,
  SweepScope,
} from './link-probe-states.repository';

export type { ExpiryCutoffs, ProbeOutcome, ProbeTarget, SweepScope };

/**
 * How the probes module reads and writes the probe state of links (deepLinkStatus,
 * healthStatus and their check times): the links module owns the table, probes only report.
 */
@Injectable()
export class LinkProbeStatesService {
  private readonly logger = new Logger(LinkProbeStatesService.name);

  constructor(
    private readonly repository: LinkProbeStatesRepository,
    private readonly events: LinkEventsService,
    private readonly outbox: EventOutboxService,
  ) {}

  /**
   * Stores a probe's verdicts on a live link unless a newer result is stored, tells the
   * edge caches when it did, and reports a status that moved (`link.health_changed`).
   * Returns false when nothing was written.
   */
  async recordOutcome(linkId: string, outcome: ProbeOutcome): Promise<boolean> {
    const previous = await this.repository.recordOutcome(linkId, outcome);
    if (previous === null) return false;
    await this.events.changedById(linkId);
    await this.reportChange(linkId, previous, outcome);
    return true;
  }

  /**
   * A move of healthStatus (the first verdict included), or of deepLinkStatus between two
   * verdicts: a re-check after ttl_expired that finds what it found before is no news, and
   * the TTL sweep would otherwise report every link every 72 hours.
   */
  private async reportChange(
    linkId: string,
    previous: RecordedProbeChange,
    outcome: ProbeOutcome,
  ): Promise<void> {
    const isHealthMoved = previous.previousHealthStatus !== outcome.healthStatus;
    const isDeepLinkMoved =
      previous.previousDeepLinkStatus !== 'ttl_expired' &&
      previous.previousDeepLinkStatus !== outcome.deepLinkStatus;
    if (!isHealthMoved && !isDeepLinkMoved) return;
    try {
      await this.outbox.publish(
        { creatorId: previous.creatorId, environment: previous.environment },
        'link.health_changed',
        {
          linkId,
          healthStatus: { before: previous.previousHealthStatus, after: outcome.healthStatus },
          deepLinkStatus: {
            before: previous.previousDeepLinkStatus,
            after: outcome.deepLinkStatus,
          },
          checkedAt: outcome.checkedAt.toISOString(),
        },
      );
    } catch (error) {
      this.logger.error(`Could not store link.health_changed for ${linkId}: ${String(error)}`);
    }
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
