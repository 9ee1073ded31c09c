import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Branded domains and vanity slugs (docs/domains.md): a creator's own hostnames, verified by a
 * DNS TXT record, and links served on them as `https://<hostname>/<slug>`. A hostname may be
 * claimed by several accounts while unverified; once one verifies it, it is theirs alone. A
 * link's hostname is kept beside its domain id: a domain's hostname never changes, and the
 * link's URL is written without a join.
 */
export class BrandedDomains1764700000000 implements MigrationInterface {
  name = 'BrandedDomains1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE domains (
        id varchar(26) PRIMARY KEY,
        creator_id varchar(26) NOT NULL REFERENCES creators (id) ON DELETE CASCADE,
        environment varchar(4) NOT NULL,
        hostname varchar(253) NOT NULL,
        not_found_url varchar(4096),
        verification_token varchar(64) NOT NULL,
        verified_at timestamptz(3),
        last_checked_at timestamptz(3),
        last_check_error varchar(300),
        created_at timestamptz(3) NOT NULL
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX domains_scope_hostname ON domains (creator_id, environment, hostname)`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX domains_verified_hostname ON domains (hostname) WHERE verified_at IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX domains_unverified ON domains (created_at) WHERE verified_at IS NULL`,
    );
    await queryRunner.query(`
      ALTER TABLE links
        ADD COLUMN domain_id varchar(26) REFERENCES domains (id),
        ADD COLUMN domain_hostname varchar(253),
        ADD COLUMN slug varchar(64),
        ADD CONSTRAINT links_slug_with_domain
          CHECK ((domain_id IS NULL) = (slug IS NULL) AND (domain_id IS NULL) = (domain_hostname IS NULL))`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX links_domain_slug ON links (domain_id, slug)
        WHERE domain_id IS NOT NULL AND deleted_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX links_domain_slug`);
    await queryRunner.query(`
      ALTER TABLE links
        DROP CONSTRAINT links_slug_with_domain,
        DROP COLUMN slug,
        DROP COLUMN domain_hostname,
        DROP COLUMN domain_id`);
    await queryRunner.query(`DROP TABLE domains`);
  }
}
