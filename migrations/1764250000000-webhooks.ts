import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Enterprise webhooks (docs/webhooks.md "Webhooks"): endpoints, the transactional outbox of events and
 * one delivery row per event and endpoint. Every row carries its creator and environment,
 * like links and clicks, so a test key reaches test endpoints and events only.
 */
export class Webhooks1764250000000 implements MigrationInterface {
  name = 'Webhooks1764250000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_endpoints (
        id varchar(26) PRIMARY KEY,
        creator_id varchar(26) NOT NULL REFERENCES creators (id) ON DELETE CASCADE,
        environment varchar(4) NOT NULL CHECK (environment IN ('live', 'test')),
        url varchar(2048) NOT NULL,
        events text[] NOT NULL,
        description varchar(500),
        allowed_origins text[] NOT NULL DEFAULT '{}',
        is_enabled boolean NOT NULL DEFAULT true,
        secret_ciphertext text NOT NULL,
        previous_secret_ciphertext text,
        previous_secret_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await queryRunner.query(`
      CREATE INDEX webhook_endpoints_creator_idx
          ON webhook_endpoints (creator_id, environment, created_at DESC) WHERE deleted_at IS NULL`);
    // The outbox: written beside (or right after) the change it reports, fanned out to
    // deliveries by the worker, which stamps dispatched_at.
    await queryRunner.query(`
      CREATE TABLE webhook_events (
        id varchar(26) PRIMARY KEY,
        creator_id varchar(26) NOT NULL REFERENCES creators (id) ON DELETE CASCADE,
        environment varchar(4) NOT NULL CHECK (environment IN ('live', 'test')),
        type varchar(64) NOT NULL,
        data jsonb NOT NULL,
        target_endpoint_id varchar(26),
        created_at timestamptz NOT NULL,
        dispatched_at timestamptz
      )`);
    await queryRunner.query(`
      CREATE INDEX webhook_events_undispatched_idx ON webhook_events (id) WHERE dispatched_at IS NULL`);
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id varchar(26) PRIMARY KEY,
        endpoint_id varchar(26) NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        event_id varchar(26) NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
        event_type varchar(64) NOT NULL,
        state varchar(9) NOT NULL DEFAULT 'pending'
          CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_status_code integer,
        last_error varchar(500),
        last_attempt_at timestamptz,
        next_attempt_at timestamptz NOT NULL,
        -- Set while a worker sends an attempt: no other worker claims it, no retry resets it.
        in_flight_until timestamptz,
        created_at timestamptz NOT NULL,
        UNIQUE (endpoint_id, event_id)
      )`);
    await queryRunner.query(`
      CREATE INDEX webhook_deliveries_due_idx
          ON webhook_deliveries (next_attempt_at, id) WHERE state = 'pending'`);
    await queryRunner.query(`
      CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhook_events`);
    await queryRunner.query(`DROP TABLE webhook_endpoints`);
  }
}
