import { MigrationInterface, QueryRunner } from 'typeorm';

/** Plans, creators, API keys and creators' network accounts. */
export class Foundation1763800000000 implements MigrationInterface {
  name = 'Foundation1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE plans (
        id varchar(20) PRIMARY KEY CHECK (id IN ('free', 'creator', 'pro', 'publisher', 'enterprise')),
        display_name varchar(60) NOT NULL,
        monthly_price_usd numeric(10, 2) NOT NULL CHECK (monthly_price_usd >= 0),
        included_clicks integer NOT NULL CHECK (included_clicks >= 0),
        has_api_access boolean NOT NULL,
        has_bulk_access boolean NOT NULL,
        has_webhooks boolean NOT NULL,
        api_requests_per_minute integer CHECK (api_requests_per_minute > 0),
        route_requests_per_minute integer CHECK (route_requests_per_minute > 0),
        bulk_requests_per_minute integer CHECK (bulk_requests_per_minute > 0),
        edge_clicks_per_minute integer NOT NULL CHECK (edge_clicks_per_minute > 0)
      )`);
    await queryRunner.query(`
      CREATE TABLE creators (
        id varchar(26) PRIMARY KEY,
        email varchar(320) NOT NULL UNIQUE,
        display_name varchar(200) NOT NULL,
        plan_id varchar(20) NOT NULL REFERENCES plans (id),
        billing_cycle varchar(10) NOT NULL DEFAULT 'monthly' CHECK (billing_cycle IN ('monthly', 'annual')),
        included_clicks_override integer CHECK (included_clicks_override >= 0),
        trial_ends_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id varchar(26) PRIMARY KEY,
        creator_id varchar(26) NOT NULL REFERENCES creators (id) ON DELETE CASCADE,
        key_hash char(64) NOT NULL UNIQUE,
        display_prefix varchar(24) NOT NULL,
        environment varchar(4) NOT NULL CHECK (environment IN ('live', 'test')),
        ip_allowlist text[] NOT NULL DEFAULT '{}',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        last_used_at timestamptz(3),
        revoked_at timestamptz(3)
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_creator_id_idx ON api_keys (creator_id)`);
    await queryRunner.query(`
      CREATE TABLE network_accounts (
        creator_id varchar(26) NOT NULL REFERENCES creators (id) ON DELETE CASCADE,
        network_id varchar(40) NOT NULL,
        affiliate_id varchar(100) NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (creator_id, network_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE network_accounts`);
    await queryRunner.query(`DROP TABLE api_keys`);
    await queryRunner.query(`DROP TABLE creators`);
    await queryRunner.query(`DROP TABLE plans`);
  }
}
