import { MigrationInterface, QueryRunner } from 'typeorm';

/** Links (soft delete), with the probe state and a trigram index for search. */
export class Links1763950000000 implements MigrationInterface {
  name = 'Links1763950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await queryRunner.query(`
      CREATE TABLE links (
        id varchar(26) PRIMARY KEY,
        creator_id varchar(26) NOT NULL REFERENCES creators (id) ON DELETE CASCADE,
        title varchar(300) NOT NULL,
        original_url varchar(4096) NOT NULL,
        canonical_url varchar(4096) NOT NULL,
        routed_url text NOT NULL,
        merchant_id varchar(64),
        region varchar(10),
        network_id varchar(40),
        preset varchar(20) NOT NULL CHECK (preset IN ('default', 'link_in_bio', 'long_form')),
        category varchar(20),
        passthrough_enabled boolean NOT NULL DEFAULT false,
        passthrough_reason varchar(500),
        passthrough_enabled_at timestamptz(3),
        network_override jsonb,
        utm_override jsonb,
        group_id varchar(128),
        notes varchar(1000),
        visitor_country char(2),
        device_type varchar(10),
        outcome varchar(12) NOT NULL CHECK (outcome IN ('routed', 'fallback', 'passthrough')),
        routing_reason varchar(40) NOT NULL,
        confidence smallint NOT NULL CHECK (confidence BETWEEN 0 AND 100),
        confidence_factor numeric(5, 4) NOT NULL,
        normalized_epc_usd numeric(12, 6) NOT NULL,
        deep_link_used boolean NOT NULL,
        crc_trace jsonb NOT NULL,
        health_status varchar(10) NOT NULL DEFAULT 'unknown'
          CHECK (health_status IN ('ok', 'warning', 'critical', 'unknown')),
        deep_link_status varchar(12) NOT NULL DEFAULT 'unchecked'
          CHECK (deep_link_status IN ('validated', 'unchecked', 'invalid', 'ttl_expired')),
        deep_link_checked_at timestamptz(3),
        last_health_check_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        deleted_at timestamptz(3)
      )`);
    // The list query: a creator's live links, newest first (ULIDs sort by time as a tiebreak).
    await queryRunner.query(
      `CREATE INDEX links_creator_created_idx ON links (creator_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    );
    // `search` is a case-insensitive substring match; trigrams serve ILIKE '%…%' on both fields.
    await queryRunner.query(
      `CREATE INDEX links_title_trgm_idx ON links USING gin (title gin_trgm_ops) WHERE deleted_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX links_original_url_trgm_idx ON links USING gin (original_url gin_trgm_ops) WHERE deleted_at IS NULL`,
    );
    // Probes re-check what expired: validated after 72 h, invalid after 24 h.
    await queryRunner.query(
      `CREATE INDEX links_deep_link_due_idx ON links (deep_link_status, deep_link_checked_at) WHERE deleted_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE links`);
  }
}
