/**
 * The key test servers store webhook signing secrets under: a server on PostgreSQL refuses to
 * start without WEBHOOK_SECRET_KEY (docs/webhooks.md "Webhooks", "Encryption keys"). For tests only.
 */
export const TEST_WEBHOOK_SECRET_KEY =
  '5e1f0c3a9b7d2e4f6a8c0b1d3e5f7a9c2b4d6e8f0a1c3e5b7d9f2a4c6e8b0d1f';
