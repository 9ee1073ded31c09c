import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { newUlid } from '../../src/common/ids';
import { asTransaction } from '../../src/database/transaction';
import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository';
import { readPointer, type ExampleRunner, type ParameterFixtures } from './openapi-examples';

/**
 * POST /webhook-deliveries/{id}/retry needs a delivery, which the delivery worker makes in the
 * background from a queued event (tests run without it, and it would also attempt other
 * suites' deliveries): the documented requests register an endpoint and queue its ping, and
 * the delivery row is written as the worker's fan-out writes it; its id is then read from
 * GET /webhooks/{id}/deliveries.
 */
export function webhookDeliveryFixtures(app: INestApplication): ParameterFixtures {
  return {
    WebhookDeliveriesController_retry: async (runner: ExampleRunner) => {
      const created = await runner.runFirstExample('WebhooksController_create');
      const webhookId = String(readPointer(created, '/data/webhook/id'));
      const ping = await runner.run(
        runner.operationById('WebhooksController_sendTest'),
        undefined,
        {
          id: webhookId,
        },
      );
      await app
        .get(WebhookDeliveriesRepository, { strict: false })
        .insertMany(asTransaction(app.get(DataSource).manager), [
          {
            id: newUlid(),
            endpointId: webhookId,
            eventId: String(readPointer(ping.body, '/data/eventId')),
            eventType: 'webhook.ping',
            createdAt: new Date(),
          },
        ]);
      const deliveries = await runner.run(
        runner.operationById('WebhooksController_listDeliveries'),
        undefined,
        { id: webhookId },
      );
      return { id: String(readPointer(deliveries.body, '/data/items/0/id')) };
    },
  };
}
