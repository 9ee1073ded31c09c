import type { KeyEnvironment } from '../common/access/auth-context';
import type { EventType } from './event-types';

/** One event as stored in the outbox and sent (`id`, `type`, `createdAt`, `environment`, `data`). */
export interface OutboxEvent {
  /** A ULID: sortable, and the receiver's idempotency key (`Linkpilot-Event-Id`). */
  id: string;
  creatorId: string;
  environment: KeyEnvironment;
  type: EventType;
  data: Record<string, unknown>;
  /** Set for an event meant for one endpoint only (the ping); null: every subscribed one. */
  targetEndpointId: string | null;
  createdAt: Date;
}

/** The JSON body a receiver gets: the event without its routing fields. */
export function toEventPayload(event: OutboxEvent): Record<string, unknown> {
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    environment: event.environment,
    data: event.data,
  };
}
