'use strict';
/**
 * A server on PostgreSQL refuses to start without WEBHOOK_SECRET_KEY (docs/webhooks.md "Webhooks"). The
 * benches store no webhook secret, so a fixed key serves every bench server.
 */
exports.BENCH_WEBHOOK_SECRET_KEY =
  '0b5e4c1d7a9f3e2b8c6d0a4f1e7b9c3d5a2f8e6b4d0c7a1e9f3b5d2c8a6e4f0b';
