import type { WebhookDeliveryRecord } from './webhook-deliveries.repository';
import type { WebhookEndpointRecord } from './webhook-endpoints.repository';
import type { WebhookDeliveryResponse, WebhookResponse } from './webhook.response';

const iso = (value: Date | null): string | null =>
  value === null ? null : new Date(value).toISOString();

export function toWebhookResponse(record: WebhookEndpointRecord, nowMs: number): WebhookResponse {
  const previousExpiresAt = record.previousSecretExpiresAt;
  return {
    id: record.id,
    url: record.url,
    events: record.events,
    description: record.description,
    allowedOrigins: record.allowedOrigins,
    enabled: record.isEnabled,
    environment: record.environment,
    previousSecretExpiresAt:
      previousExpiresAt !== null && new Date(previousExpiresAt).getTime() > nowMs
        ? iso(previousExpiresAt)
        : null,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
  };
}

export function toDeliveryResponse(record: WebhookDeliveryRecord): WebhookDeliveryResponse {
  return {
    id: record.id,
    webhookId: record.endpointId,
    eventId: record.eventId,
    eventType: record.eventType,
    state: record.state,
    attempts: record.attempts,
    lastStatusCode: record.lastStatusCode,
    lastError: record.lastError,
    lastAttemptAt: iso(record.lastAttemptAt),
    nextAttemptAt: record.state === 'pending' ? iso(record.nextAttemptAt) : null,
    createdAt: new Date(record.createdAt).toISOString(),
  };
}
