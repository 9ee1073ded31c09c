import { MigrationInterface, QueryRunner } from 'typeorm';
import { edgeProfileLogSql } from './edge-profile-log-sql';

/** The statement's rows a trigger adds (sign 1) or takes out (sign -1). */
const CHANGES = [
  {
    event: 'INSERT',
    rows: 'new_conversions',
    sign: '',
    transition: 'NEW TABLE AS new_conversions',
  },
  {
    event: 'DELETE',
    rows: 'old_conversions',
    sign: '-',
    transition: 'OLD TABLE AS old_conversions',
  },
] as const;

interface Rollup {
  table: string;
  /** The columns a row is unique by, in lock order, and how a conversion's value is taken. */
  key: readonly (readonly [column: string, type: string, value?: string])[];
}

const CREATOR_ID = ['creator_id', 'varchar(26) NOT NULL'] as const;
const ENVIRONMENT = ['environment', 'varchar(4) NOT NULL'] as const;
const MERCHANT_ID = ['merchant_id', 'varchar(64)'] as const;
const NETWORK_ID = ['network_id', 'varchar(40) NOT NULL'] as const;
const REGION = ['region', 'varchar(10)'] as const;

/**
 * Two rollups of the conversions' effects, in the order every trigger touches them: per
 * creator and UTC day by route (the summary, the daily series without a link, the realised
 * EPC that learned routing reads), and per link and UTC hour with every dimension (a link's
 * figures, hourly series, series by country or device). Keys as in the click rollups, so a
 * read joins them to clicks group for group.
 */
const ROLLUPS: readonly Rollup[] = [
  {
    table: 'conversion_rollup_days',
    key: [
      CREATOR_ID,
      ENVIRONMENT,
      ['day', 'date NOT NULL', `(bucket_at AT TIME ZONE 'UTC')::date`],
      MERCHANT_ID,
      NETWORK_ID,
      REGION,
    ],
  },
  {
    table: 'conversion_rollup_links',
    key: [
      CREATOR_ID,
      ENVIRONMENT,
      ['link_id', 'varchar(26)'],
      ['hour', 'timestamptz NOT NULL', `date_trunc('hour', bucket_at, 'UTC')`],
      MERCHANT_ID,
      NETWORK_ID,
      REGION,
      ['visitor_country', 'char(2)'],
      ['device_class', 'varchar(10)'],
    ],
  },
];

/** What a conversion row adds to its rollup rows: its effects, computed when it was recorded. */
const SUMS = [
  ['conversions', 'integer', 'conversions_delta'],
  ['approved_commission_usd', 'numeric', 'approved_usd_delta'],
  ['pending_commission_usd', 'numeric', 'pending_usd_delta'],
] as const;

function upsertSql({ table, key }: Rollup, rows: string, sign: string): string {
  const positions = key.map((_, i) => i + 1).join(', ');
  const columns = [...key.map(([column]) => column), ...SUMS.map(([column]) => column)];
  const values = [
    ...key.map(([column, , value]) => value ?? column),
    ...SUMS.map(([, , delta]) => `${sign}sum(${delta})`),
  ];
  return `
    INSERT INTO ${table} AS rollup (${columns.join(', ')})
    SELECT ${values.join(', ')}
      FROM ${rows}
     GROUP BY ${positions}
     ORDER BY ${positions}
    ON CONFLICT (${key.map(([column]) => column).join(', ')})
    DO UPDATE SET ${SUMS.map(([column]) => `${column} = rollup.${column} + excluded.${column}`).join(', ')};`;
}

/**
 * Click ids to the networks, conversions in, earnings out (README "Conversions"):
 *
 * - `creators.attribution` (default off, so today's routed URLs stay byte for byte) and
 *   `links.attribution` (null: the creator's), read by the edge; the edge-profile change log
 *   now also logs a change of `attribution`, so it reaches the edge like a plan change.
 * - `postback_tokens`: one per creator and environment, SHA-256 of the token only.
 * - `conversions`: one row per (creator, environment, network, order id, status), the key that
 *   makes every way in idempotent. Each row carries its effect on the figures
 *   (`*_delta`), decided when it was recorded against the order's earlier rows, and the
 *   bucket of the order's first row (`bucket_at`), so all rows of an order add up in one
 *   place: a reversal takes out exactly what the order had added.
 * - Two rollups of those effects, kept by statement-level triggers in the same transaction
 *   as any write (as the click rollups: docs/analytics.md). Conversions are never updated,
 *   only inserted and deleted (the sandbox reset).
 */
export class Conversions1764560000000 implements MigrationInterface {
  name = 'Conversions1764560000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE creators ADD COLUMN attribution boolean NOT NULL DEFAULT false`,
    );
    await queryRunner.query(`ALTER TABLE links ADD COLUMN attribution boolean`);
    await queryRunner.query(
      edgeProfileLogSql(['id', 'plan_id', 'included_clicks_override', 'attribution']),
    );

    await queryRunner.query(`
      CREATE TABLE postback_tokens (
        creator_id varchar(26) NOT NULL REFERENCES creators (id) ON DELETE CASCADE,
        environment varchar(4) NOT NULL CHECK (environment IN ('live', 'test')),
        token_hash char(64) NOT NULL UNIQUE,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (creator_id, environment)
      )`);

    await queryRunner.query(`
      CREATE TABLE conversions (
        id varchar(26) PRIMARY KEY,
        creator_id varchar(26) NOT NULL REFERENCES creators (id) ON DELETE CASCADE,
        environment varchar(4) NOT NULL CHECK (environment IN ('live', 'test')),
        network_id varchar(40) NOT NULL,
        order_id varchar(128) NOT NULL,
        status varchar(8) NOT NULL CHECK (status IN ('pending', 'approved', 'reversed')),
        source varchar(8) NOT NULL CHECK (source IN ('api', 'postback', 'import')),
        click_id varchar(64),
        link_id varchar(26),
        merchant_id varchar(64),
        region varchar(10),
        visitor_country char(2),
        device_class varchar(10),
        clicked_at timestamptz(3),
        sale_amount numeric(16, 4) NOT NULL,
        commission numeric(16, 4) NOT NULL,
        currency char(3) NOT NULL,
        usd_rate numeric(20, 10) NOT NULL,
        sale_amount_usd numeric(18, 6) NOT NULL,
        commission_usd numeric(18, 6) NOT NULL,
        occurred_at timestamptz(3) NOT NULL,
        bucket_at timestamptz(3) NOT NULL,
        conversions_delta smallint NOT NULL,
        approved_usd_delta numeric(18, 6) NOT NULL,
        pending_usd_delta numeric(18, 6) NOT NULL,
        recorded_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT conversions_order_status_key
          UNIQUE (creator_id, environment, network_id, order_id, status)
      )`);
    await queryRunner.query(
      `CREATE INDEX conversions_creator_recorded_idx ON conversions (creator_id, environment, recorded_at DESC, id DESC)`,
    );

    for (const { table, key } of ROLLUPS) {
      const columns = [
        ...key.map(([column, type]) => `${column} ${type}`),
        ...SUMS.map(([column, type]) => `${column} ${type} NOT NULL`),
      ];
      await queryRunner.query(`
        CREATE TABLE ${table} (
          ${columns.join(',\n          ')},
          CONSTRAINT ${table}_key UNIQUE NULLS NOT DISTINCT (${key.map(([column]) => column).join(', ')})
        )`);
    }
    // The link rollup's key leads with the creator, so a link is found by its own index.
    await queryRunner.query(
      `CREATE INDEX conversion_rollup_links_link_idx ON conversion_rollup_links (link_id, hour)`,
    );

    for (const { event, rows, sign, transition } of CHANGES) {
      const name = `conversion_rollups_on_${event.toLowerCase()}`;
      await queryRunner.query(`
        CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          ${ROLLUPS.map((rollup) => upsertSql(rollup, rows, sign)).join('\n')}
          RETURN NULL;
        END $$`);
      await queryRunner.query(`
        CREATE TRIGGER ${name} AFTER ${event} ON conversions REFERENCING ${transition}
          FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const { event } of CHANGES) {
      const name = `conversion_rollups_on_${event.toLowerCase()}`;
      await queryRunner.query(`DROP TRIGGER ${name} ON conversions`);
      await queryRunner.query(`DROP FUNCTION ${name}()`);
    }
    for (const { table } of [...ROLLUPS].reverse()) await queryRunner.query(`DROP TABLE ${table}`);
    await queryRunner.query(`DROP TABLE conversions`);
    await queryRunner.query(`DROP TABLE postback_tokens`);
    await queryRunner.query(edgeProfileLogSql(['id', 'plan_id', 'included_clicks_override']));
    await queryRunner.query(`ALTER TABLE links DROP COLUMN attribution`);
    await queryRunner.query(`ALTER TABLE creators DROP COLUMN attribution`);
  }
}
