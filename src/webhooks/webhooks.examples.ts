import { ApiPathParameterFrom } from '../openapi/operation-docs.decorators';

/**
 * The documented request examples of the webhook routes; each succeeds as shown
 * (test/e2e/openapi-examples.e2e-spec.ts). example.com resolves to public addresses.
 */
export const CREATE_WEBHOOK_EXAMPLES = {
  rateChanges: {
    summary: 'An endpoint for commission-rate changes and link health',
    value: {
      url: 'https://example.com/linkpilot/webhooks',
      events: ['commission_rate.changed', 'link.health_changed'],
      description: 'Order pipeline',
    },
  },
};

export const UPDATE_WEBHOOK_EXAMPLES = {
  moreEvents: {
    summary: 'Add the usage warnings and rename',
    value: {
      events: ['commission_rate.changed', 'link.health_changed', 'account.usage_warning'],
      description: 'Order pipeline and billing alerts',
    },
  },
};

/** The `{id}` of the routes of one endpoint: the id that POST /webhooks answers. */
export const ApiWebhookIdParameter = (): MethodDecorator =>
  ApiPathParameterFrom('id', 'A webhook endpoint id, as POST /webhooks answers it', {
    operationId: 'WebhooksController_create',
    status: 201,
    pointer: '/data/webhook/id',
  });
