import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { Agent, request } from 'undici';
import type { Transaction } from '../database/transaction';
import { Clock } from '../common/clock';
import { newUlid } from '../common/ids';
import { projectRoot } from '../common/project-root';
import { InjectConfig } from '../config/config.module';
import { WebhooksConfig } from '../config/env';
import { EventOutboxService } from '../events/event-outbox.service';
import { OutboxEvent, toEventPayload } from '../events/outbox-event';
import { buildPinnedConnector, isCausedByForbiddenTarget } from '../probes/pinned-connector';
import { retryDelayMs } from './retry-schedule';
import {
  AttemptResult,
  NewDelivery,
  WebhookDeliveriesRepository,
  WebhookDeliveryRecord,
} from './webhook-deliveries.repository';
import { WebhookEndpointRecord, WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookSecretCipher } from './webhook-secret-cipher';
import { signatureHeader } from './webhook-signing';

/** A 2xx within this is delivered; anything else is retried. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** An attempt is owned by its worker this long (well past the timeout), then made again. */
const IN_FLIGHT_MS = 60_000;
const POLL_INTERVAL_MS = 1_000;
const EVENTS_PER_PASS = 100;
const DELIVERIES_PER_PASS = 20;

const USER_AGENT = `Linkpilot-Webhooks/${readVersion()}`;

function readVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as {
      version?: string;
    };
    return manifest.version ?? '0';
  } catch {
    return '0';
  }
}

/** What one pass did: events fanned out to deliveries, attempts made. */
export interface DeliveryPass {
  dispatched: number;
  attempted: number;
}

/**
 * The outbox's delivery (docs/webhooks.md "Webhooks"), in every server process unless
 * WEBHOOK_WORKER_ENABLED=false: each pass fans new events out to the subscribed endpoints
 * (one transaction, SKIP LOCKED) and makes the due attempts it claims (SKIP LOCKED too, so
 * nodes share the work and never send the same attempt). Tests call deliverOnce.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliveryWorker.name);
  private readonly dispatcher: Agent;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private isStopping = false;

  constructor(
    @InjectConfig('webhooks') private readonly config: WebhooksConfig,
    private readonly outbox: EventOutboxService,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly cipher: WebhookSecretCipher,
    private readonly clock: Clock,
  ) {
    this.dispatcher = new Agent({
      connect: buildPinnedConnector(config.allowPrivateTargets, DELIVERY_TIMEOUT_MS),
      keepAliveTimeout: 1000,
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.workerEnabled) this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.isStopping = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.running;
    await this.dispatcher.close();
  }

  /** One pass: fan out, then attempt what is due. */
  async deliverOnce(): Promise<DeliveryPass> {
    const dispatched = await this.outbox.dispatchPending(EVENTS_PER_PASS, (events, transaction) =>
      this.fanOut(events, transaction),
    );
    const nowMs = this.clock.nowMs();
    const claimed = await this.deliveries.claimDue(
      new Date(nowMs),
      new Date(nowMs + IN_FLIGHT_MS),
      DELIVERIES_PER_PASS,
    );
    if (claimed.length > 0) await this.attemptAll(claimed);
    return { dispatched, attempted: claimed.length };
  }

  /** Passes every second; back to back while they find work (an endpoint gets one per pass). */
  private schedule(delayMs = POLL_INTERVAL_MS): void {
    if (this.isStopping) return;
    this.timer = setTimeout(() => {
      let hasWork = false;
      this.running = this.deliverOnce()
        .then((pass) => (hasWork = pass.attempted > 0 || pass.dispatched > 0))
        .catch((error: unknown) => this.logger.error(`Webhook pass failed: ${String(error)}`))
        .finally(() => {
          this.running = null;
          this.schedule(hasWork ? 0 : POLL_INTERVAL_MS);
        });
    }, delayMs);
    this.timer.unref();
  }

  private async fanOut(events: OutboxEvent[], transaction: Transaction): Promise<void> {
    const rows: NewDelivery[] = [];
    for (const event of events) {
      const endpointIds =
        event.targetEndpointId !== null
          ? [event.targetEndpointId]
          : (await this.endpoints.findSubscribed(transaction, event, event.type)).map((e) => e.id);
      for (const endpointId of endpointIds) {
        rows.push({
          id: newUlid(),
          endpointId,
          eventId: event.id,
          eventType: event.type,
          createdAt: event.createdAt,
        });
      }
    }
    await this.deliveries.insertMany(transaction, rows);
  }

  private async attemptAll(claimed: WebhookDeliveryRecord[]): Promise<void> {
    const [events, endpoints] = await Promise.all([
      this.outbox.findByIds(claimed.map((delivery) => delivery.eventId)),
      this.endpoints.findByIdsWithDeleted(claimed.map((delivery) => delivery.endpointId)),
    ]);
    const eventsById = new Map(events.map((event) => [event.id, event]));
    const endpointsById = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
    await Promise.all(
      claimed.map(async (delivery) => {
        const result = await this.attempt(
          delivery,
          eventsById.get(delivery.eventId),
          endpointsById.get(delivery.endpointId),
        );
        await this.deliveries
          .recordAttempt(delivery.id, result)
          .catch((error: unknown) =>
            this.logger.error(`Could not record delivery ${delivery.id}: ${String(error)}`),
          );
      }),
    );
  }

  private async attempt(
    delivery: WebhookDeliveryRecord,
    event: OutboxEvent | undefined,
    endpoint: (WebhookEndpointRecord & { isDeleted: boolean }) | undefined,
  ): Promise<AttemptResult> {
    const attemptedAt = new Date(this.clock.nowMs());
    if (event === undefined || endpoint === undefined || endpoint.isDeleted) {
      return settle('failed', null, 'Endpoint deleted', attemptedAt);
    }
    if (!endpoint.isEnabled) return settle('failed', null, 'Endpoint disabled', attemptedAt);
    const body = JSON.stringify(toEventPayload(event));
    const { statusCode, error } = await this.send(endpoint, event, body, attemptedAt.getTime());
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
      return settle('delivered', statusCode, null, attemptedAt);
    }
    const delayMs = retryDelayMs(delivery.attempts, Math.random());
    const problem = error ?? `HTTP ${statusCode}`;
    if (delayMs === null) return settle('failed', statusCode, problem, attemptedAt);
    return {
      state: 'pending',
      statusCode,
      error: problem,
      attemptedAt,
      nextAttemptAt: new Date(attemptedAt.getTime() + delayMs),
    };
  }

  /** One POST, redirects not followed (a 3xx is a failure), at most DELIVERY_TIMEOUT_MS. */
  private async send(
    endpoint: WebhookEndpointRecord,
    event: OutboxEvent,
    body: string,
    nowMs: number,
  ): Promise<{ statusCode: number | null; error: string | null }> {
    try {
      const answer = await request(endpoint.url, {
        method: 'POST',
        body,
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'linkpilot-event-id': event.id,
          'linkpilot-event-type': event.type,
          'linkpilot-signature': signatureHeader(
            this.signingSecrets(endpoint, nowMs),
            Math.floor(nowMs / 1000),
            body,
          ),
        },
      });
      await answer.body.dump();
      return { statusCode: answer.statusCode, error: null };
    } catch (error) {
      if (isCausedByForbiddenTarget(error)) {
        return { statusCode: null, error: 'Refused target: a private address' };
      }
      const message = error instanceof Error ? error.message : String(error);
      return { statusCode: null, error: message };
    }
  }

  /** The current secret, and during a rotation's 24 hours the previous one after it. */
  private signingSecrets(endpoint: WebhookEndpointRecord, nowMs: number): string[] {
    const secrets = [this.cipher.decrypt(endpoint.secretCiphertext).secret];
    const previousExpiresAt = endpoint.previousSecretExpiresAt;
    if (
      endpoint.previousSecretCiphertext !== null &&
      previousExpiresAt !== null &&
      new Date(previousExpiresAt).getTime() > nowMs
    ) {
      secrets.push(this.cipher.decrypt(endpoint.previousSecretCiphertext).secret);
    }
    return secrets;
  }
}

function settle(
  state: 'delivered' | 'failed',
  statusCode: number | null,
  error: string | null,
  attemptedAt: Date,
): AttemptResult {
  return { state, statusCode, error, attemptedAt, nextAttemptAt: null };
}
