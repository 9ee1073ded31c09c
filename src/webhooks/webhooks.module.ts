import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookOriginsService } from './webhook-origins.service';
import { WebhookSecretsModule } from './webhook-secrets.module';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Enterprise webhooks: endpoints API, and the delivery of the events outbox. */
@Module({
  imports: [EventsModule, WebhookSecretsModule],
  controllers: [WebhooksController, WebhookDeliveriesController],
  providers: [
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    WebhooksService,
    WebhookDeliveryWorker,
    WebhookOriginsService,
  ],
  exports: [WebhookDeliveryWorker],
})
export class WebhooksModule {}
