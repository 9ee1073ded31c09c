import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { KEY_ENVIRONMENTS, KeyEnvironment } from '../common/access/auth-context';
import { PaginationMeta } from '../common/pagination';
import { SUBSCRIBABLE_EVENT_TYPES } from '../events/event-types';
import { DELIVERY_STATES, DeliveryState } from './webhook-deliveries.repository';

export class WebhookResponse {
  @ApiProperty({ readOnly: true }) id: string;
  @ApiProperty({ format: 'uri' }) url: string;
  @ApiProperty({ enum: SUBSCRIBABLE_EVENT_TYPES, isArray: true }) events: string[];
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ type: [String] }) allowedOrigins: string[];
  @ApiProperty() enabled: boolean;
  @ApiProperty({ enum: KEY_ENVIRONMENTS }) environment: KeyEnvironment;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'date-time',
    description: 'While set, the previous secret still signs beside the new one',
  })
  previousSecretExpiresAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

/** Creation and rotation: the signing secret, shown this once. */
export class WebhookWithSecretResponse extends WebhookResponse {
  @ApiProperty({ example: 'whsec_…', description: 'Shown once; store it now' })
  secret: string;
}

export class WebhookEnvelope {
  @ApiProperty({ type: WebhookResponse }) webhook: WebhookResponse;
}

export class WebhookWithSecretEnvelope {
  @ApiProperty({ type: WebhookWithSecretResponse }) webhook: WebhookWithSecretResponse;
}

export class WebhookListResponse {
  @ApiProperty({ type: [WebhookResponse] }) items: WebhookResponse[];
}

export class DeleteWebhookResponse {
  @ApiProperty() id: string;
  @ApiProperty() deleted: boolean;
}

export class TestWebhookResponse {
  @ApiProperty({ description: 'The webhook.ping event queued for this endpoint' })
  eventId: string;
}

export class WebhookDeliveryResponse {
  @ApiProperty() id: string;
  @ApiProperty() webhookId: string;
  @ApiProperty() eventId: string;
  @ApiProperty() eventType: string;
  @ApiProperty({ enum: DELIVERY_STATES }) state: DeliveryState;
  @ApiProperty({ minimum: 0 }) attempts: number;
  @ApiProperty({ type: Number, nullable: true }) lastStatusCode: number | null;
  @ApiProperty({ type: String, nullable: true }) lastError: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) lastAttemptAt: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'date-time',
    description: 'null unless pending',
  })
  nextAttemptAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class WebhookDeliveryEnvelope {
  @ApiProperty({ type: WebhookDeliveryResponse }) delivery: WebhookDeliveryResponse;
}

export class WebhookDeliveryListResponse {
  @ApiProperty({ type: [WebhookDeliveryResponse] }) items: WebhookDeliveryResponse[];
  @ApiProperty({ type: PaginationMeta }) pagination: PaginationMeta;
}
