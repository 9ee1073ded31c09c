import { Injectable, Logger } from '@nestjs/common';
import type { RecordScope } from '../common/access/auth-context';
import { Clock } from '../common/clock';
import { newUlid } from '../common/ids';
import type { Transaction } from '../database/transaction';
import { EventOutboxRepository } from './event-outbox.repository';
import type { EventType } from './event-types';
import type { OutboxEvent } from './outbox-event';

/**
 * The writer of the webhook outbox (docs/webhooks.md "Webhooks"). It sits below the feature modules
 * (account, links, probes) so that they can report what happened without knowing webhooks
 * exist; the webhooks module, above them, fans the outbox out to endpoints and delivers.
 */
@Injectable()
export class EventOutboxService {
  private readonly logger = new Logger(EventOutboxService.name);

  constructor(
    private readonly repository: EventOutboxRepository,
    private readonly clock: Clock,
  ) {}

  /** Stores an event for the scope's subscribed endpoints (or one endpoint); returns it. */
  async publish(
    scope: RecordScope,
    type: EventType,
    data: Record<string, unknown>,
    options: { targetEndpointId?: string; transaction?: Transaction } = {},
  ): Promise<OutboxEvent> {
    const nowMs = this.clock.nowMs();
    const event: OutboxEvent = {
      id: newUlid(nowMs),
      creatorId: scope.creatorId,
      environment: scope.environment,
      type,
      data,
      targetEndpointId: options.targetEndpointId ?? null,
      createdAt: new Date(nowMs),
    };
    await this.repository.insert(event, options.transaction);
    return event;
  }

  /**
   * For hot paths (the redirect): stores the event without the caller waiting for
   * PostgreSQL. A failure is logged with the event, never thrown.
   */
  publishInBackground(scope: RecordScope, type: EventType, data: Record<string, unknown>): void {
    this.publish(scope, type, data).catch((error: unknown) =>
      this.logger.error(
        `Could not store ${type} event for creator ${scope.creatorId} (${JSON.stringify(data)}): ${String(error)}`,
      ),
    );
  }

  /** The worker's fan-out step (see EventOutboxRepository.dispatchPending). */
  dispatchPending(
    limit: number,
    fanOut: (events: OutboxEvent[], transaction: Transaction) => Promise<void>,
  ): Promise<number> {
    return this.repository.dispatchPending(limit, fanOut);
  }

  findByIds(ids: string[]): Promise<OutboxEvent[]> {
    return this.repository.findByIds(ids);
  }
}
