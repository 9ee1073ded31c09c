import { setTimeout as delay } from 'node:timers/promises';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { InjectConfig } from '../config/config.module';
import { ProbesConfig } from '../config/env';
import { AppMetrics } from '../metrics/app-metrics';
import { LinkProber } from './link-prober';
import { LinkEventsService } from '../links/link-events.service';
import {
  LinkProbeStatesService,
  ProbeTarget,
  SweepScope,
} from '../links/link-probe-states.service';
import { expiryCutoffMs } from './rules/deep-link-expiry';
import { classifyDeepLinkProbe } from './rules/classify-deep-link-probe';
import { classifyHealthProbe } from './rules/classify-health-probe';

/** Probes running at once per process: each holds at most two outbound requests. */
const PROBE_CONCURRENCY = 4;
/** Links waiting beyond this are not queued (the sweep picks them up later). */
const MAX_WAITING = 10_000;
/** Links one sweep expires, and stranded links it retries (each). */
const SWEEP_BATCH_SIZE = 500;
/** An unchecked link older than this lost its first probe. */
const STRANDED_AFTER_MS = 10 * 60 * 1000;
/** On shutdown, how long in-flight probes (3 s budget + one UPDATE) may finish. */
const SHUTDOWN_GRACE_MS = 5000;

export interface ProbeRequest {
  linkId: string;
  /** The URL visitors are sent to: the link's routedUrl. */
  url: string;
}

export type ProbeSweepResult = {
  /** Moved from validated (72 h) or invalid (24 h) to ttl_expired, and queued. */
  expiredLinkIds: string[];
  /** Left unchecked or ttl_expired by a probe that never landed, queued again. */
  retriedLinkIds: string[];
};

/**
 * Deep-link and link-health probes of links (SPEC, States and transitions), off the request
 * path: an in-process queue of at most PROBE_CONCURRENCY probes at a time, each writing
 * deepLinkStatus, healthStatus and their check times on the link row. Not durable by design:
 * a probe lost in a restart is retried by the next sweep (`expireAndRequeue`).
 */
@Injectable()
export class ProbesService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ProbesService.name);
  /** Insertion-ordered; re-enqueueing a waiting link keeps its place and takes the new URL. */
  private readonly waiting = new Map<string, ProbeRequest>();
  private readonly running = new Map<string, Promise<void>>();
  private isStopping = false;

  constructor(
    @InjectConfig('probes') private readonly config: ProbesConfig,
    private readonly prober: LinkProber,
    private readonly probeStates: LinkProbeStatesService,
    private readonly clock: Clock,
    private readonly metrics: AppMetrics,
    linkEvents: LinkEventsService,
  ) {
    // Probe what visitors are sent to: the original URL while passthrough is on.
    linkEvents.onCreated((links) => {
      for (const link of links) this.enqueue({ linkId: link.linkId, url: link.servedUrl });
    });
  }

  /**
   * Queues both probes of a link and returns at once: never blocks, never throws. Call it
   * right after a link is created (or its routed URL changes); the row's statuses settle
   * within seconds. A no-op when probes are switched off or the app is shutting down.
   */
  enqueue(request: ProbeRequest): void {
    if (!this.config.enabled || this.isStopping) return;
    if (!this.waiting.has(request.linkId) && this.waiting.size >= MAX_WAITING) {
      this.logger.warn(
        `Probe queue full (${MAX_WAITING}); link ${request.linkId} left for the sweep`,
      );
      return;
    }
    this.waiting.set(request.linkId, { linkId: request.linkId, url: request.url });
    this.drain();
  }

  /**
   * The scheduled sweep: moves links whose deep-link result outlived its TTL (validated 72 h,
   * invalid 24 h) to ttl_expired and queues a re-probe of each, and re-queues links whose
   * probe never landed. Bounded to SWEEP_BATCH_SIZE of each per call; a no-op when probes
   * are switched off. `creatorId` limits it to one creator's links.
   */
  async expireAndRequeue(options: { creatorId?: string } = {}): Promise<ProbeSweepResult> {
    if (!this.config.enabled) return { expiredLinkIds: [], retriedLinkIds: [] };
    const nowMs = this.clock.nowMs();
    const scope: SweepScope = { creatorId: options.creatorId, limit: SWEEP_BATCH_SIZE };
    // Stranded first: a link this sweep expires is then queued once, not also "retried".
    const stranded = await this.probeStates.findStranded(
      new Date(nowMs - STRANDED_AFTER_MS),
      scope,
    );
    const retried = stranded.filter((link) => !this.isQueued(link.id));
    const expired = await this.probeStates.expireDue(
      {
        validatedBefore: new Date(expiryCutoffMs('validated', nowMs)),
        invalidBefore: new Date(expiryCutoffMs('invalid', nowMs)),
      },
      scope,
    );
    for (const link of [...retried, ...expired]) this.enqueueTarget(link);
    if (expired.length > 0 || retried.length > 0) {
      this.logger.log(`Probe sweep: ${expired.length} expired, ${retried.length} retried`);
    }
    return {
      expiredLinkIds: expired.map((link) => link.id),
      retriedLinkIds: retried.map((link) => link.id),
    };
  }

  /** Stops taking work and gives in-flight probes a moment to record their results. */
  async beforeApplicationShutdown(): Promise<void> {
    this.isStopping = true;
    this.waiting.clear();
    if (this.running.size === 0) return;
    await Promise.race([
      Promise.allSettled(this.running.values()),
      delay(SHUTDOWN_GRACE_MS, undefined, { ref: false }),
    ]);
  }

  private isQueued(linkId: string): boolean {
    return this.waiting.has(linkId) || this.running.has(linkId);
  }

  private enqueueTarget(link: ProbeTarget): void {
    this.enqueue({ linkId: link.id, url: link.routedUrl });
  }

  /** Starts waiting probes while slots are free; a link never runs twice at once. */
  private drain(): void {
    for (const [linkId, request] of this.waiting) {
      if (this.isStopping || this.running.size >= PROBE_CONCURRENCY) return;
      if (this.running.has(linkId)) continue;
      this.waiting.delete(linkId);
      const task = this.probeAndRecord(request).finally(() => {
        this.running.delete(linkId);
        this.drain();
      });
      this.running.set(linkId, task);
    }
  }

  /** Never rejects: a failure is logged and the link keeps its previous statuses. */
  private async probeAndRecord({ linkId, url }: ProbeRequest): Promise<void> {
    try {
      const checkedAt = new Date(this.clock.nowMs());
      const [deepLink, health] = await Promise.all([
        this.prober.probeDeepLink(url),
        this.prober.probeHealth(url),
      ]);
      const outcome = {
        deepLinkStatus: classifyDeepLinkProbe(deepLink),
        healthStatus: classifyHealthProbe(health),
        checkedAt,
      };
      this.metrics.countProbeResult('deep_link', outcome.deepLinkStatus);
      this.metrics.countProbeResult('health', outcome.healthStatus);
      // Links store it and tell the edge caches.
      const isRecorded = await this.probeStates.recordOutcome(linkId, outcome);
      this.logger.debug(
        `Link ${linkId}: deep link ${outcome.deepLinkStatus}, health ${outcome.healthStatus}` +
          (isRecorded ? '' : ' (not recorded: link deleted or a newer result stored)'),
      );
    } catch (error) {
      this.logger.error(
        `Probe of link ${linkId} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
