/**
 * The webhook event catalogue (docs/webhooks.md "Webhooks"). An endpoint subscribes to a non-empty
 * subset of the subscribable ones; `webhook.ping` is sent only by `POST /v1/webhooks/:id/test`.
 */
export const SUBSCRIBABLE_EVENT_TYPES = [
  'account.usage_warning',
  'link.health_changed',
  'commission_rate.changed',
  'conversion.recorded',
  'conversion.reversed',
] as const;
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];
export type EventType = SubscribableEventType | 'webhook.ping';

/** The usage shares that raise `account.usage_warning`, once each per billing period. */
export const USAGE_WARNING_PERCENTS = [80, 100] as const;
