'use strict';
/**
 * The million-link profile (`npm run bench -- --profile large`, or BENCH_PROFILE=large):
 * 1,000,000 links of 10,000 Enterprise creators written straight into PostgreSQL, visited
 * Zipf-distributed (s = 1), so most clicks find their link and creator in process and some
 * go to Redis and PostgreSQL.
 *
 * Writing a million links through the API would take most of an hour, so the bench writes
 * the rows itself, from what the service itself writes: one template link per product URL is
 * created through the API (the real routing engine, canonicaliser and trace), and every link
 * copies its template's row in SQL with its own id, creator, `v=` query and the creator's
 * affiliate id in its routed URL and trace. Every column comes from the real table, so a new
 * migration's column is copied too.
 *
 * The seeded database is kept: a marker (the database's comment) records the shape, and a
 * run that finds the same shape only clears what runs write (clicks, excluded hits).
 */
const { Client, Pool } = require('pg');

/** Bump when the rows the seed writes change, so an older seeded database is rebuilt. */
const SEED_VERSION = 2;
/** Placeholders in the templates, replaced per link and per creator. */
const LINK_PLACEHOLDER = 'BENCHLINK';
const AFFILIATE_PLACEHOLDER = 'benchtpl';
/** Links written per statement, and statements (and index builds) run at once. */
const LINKS_PER_STATEMENT = 50_000;
const SEED_CONNECTIONS = 2;
/**
 * Under Zipf the most visited link alone draws 1/H(n) of the clicks (7% for a million), far
 * over any plan's per-creator window at these rates (Enterprise: 10,000 a minute), so the
 * profile would measure 429 answers. In its own database the bench lifts the Enterprise
 * window; every click still runs both windows, the quota and the bot rules.
 */
const BENCH_ENTERPRISE_CLICKS_PER_MINUTE = 100_000_000;
// The service's own list, from its build (the bench runs against dist/ anyway).
const { NETWORK_IDS: NETWORKS } = require('../dist/src/networks/network-ids');

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** `value` in Crockford base 32, `length` characters, most significant first. */
function base32(value, length) {
  let text = '';
  for (let i = 0; i < length; i++) {
    text = CROCKFORD[value % 32] + text;
    value = Math.floor(value / 32);
  }
  return text;
}
/** The time part every seeded link id shares (2026-01-01), so ids are known without a read. */
const LINK_ID_TIME = base32(Date.UTC(2026, 0, 1), 10);
/** Link `index`'s id: a valid ULID, in index order (the primary key fills left to right). */
const linkIdOf = (index) => `${LINK_ID_TIME}${base32(index, 16)}`;

const seconds = (ms) => Math.round(ms / 100) / 10;

/** The profile's shape from the environment; a different shape is seeded afresh. */
function largeProfileShape(env) {
  return {
    links: Number(env.BENCH_LARGE_LINKS ?? 1_000_000),
    creators: Number(env.BENCH_LARGE_CREATORS ?? 10_000),
    zipfExponent: Number(env.BENCH_ZIPF_S ?? 1),
    requestsPerConnection: Number(env.BENCH_LARGE_REQUESTS_PER_CONNECTION ?? 10_000),
  };
}

/** What the marker says of a seeded database: the rows, not how they are visited. */
const markerOf = (shape) =>
  JSON.stringify({
    seed: 'linkpilot-bench-large',
    version: SEED_VERSION,
    links: shape.links,
    creators: shape.creators,
  });

async function connect(dbUrl) {
  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  return db;
}

/** The database's marker, or null when it has none or does not exist. */
async function readMarker(dbUrl) {
  let db;
  try {
    db = await connect(dbUrl);
  } catch (error) {
    if (error.code === '3D000') return null; // no such database
    throw error;
  }
  try {
    const { rows } = await db.query(
      `SELECT shobj_description(oid, 'pg_database') AS marker FROM pg_database WHERE datname = current_database()`,
    );
    return rows[0]?.marker ?? null;
  } finally {
    await db.end();
  }
}

async function writeMarker(db, marker) {
  const { rows } = await db.query('SELECT current_database() AS name');
  await db.query(
    `COMMENT ON DATABASE "${rows[0].name.replace(/"/g, '""')}" IS '${marker.replace(/'/g, "''")}'`,
  );
}

/**
 * The 10,000 creators (Enterprise, twelve active network accounts each, affiliate id
 * `bench<i>`) and the template creator, whose API key creates the templates. No API keys for
 * the others: clicks need none.
 */
async function seedCreators(db, shape, { ulid, generateApiKey, hashApiKey, displayPrefixOf }) {
  const creatorIds = Array.from({ length: shape.creators }, () => ulid());
  await db.query(
    `INSERT INTO creators (id, email, display_name, plan_id)
     SELECT id, 'bench-large-' || ix || '@example.com', 'Bench ' || ix, 'enterprise'
       FROM unnest($1::varchar[]) WITH ORDINALITY AS c(id, ix)`,
    [creatorIds],
  );
  await db.query(
    `INSERT INTO network_accounts (creator_id, network_id, affiliate_id)
     SELECT c.id, n.id, 'bench' || (c.ix - 1)
       FROM unnest($1::varchar[]) WITH ORDINALITY AS c(id, ix), unnest($2::varchar[]) AS n(id)`,
    [creatorIds, NETWORKS],
  );
  const templateCreatorId = ulid();
  const templateKey = generateApiKey('live');
  await db.query(
    `INSERT INTO creators (id, email, display_name, plan_id) VALUES ($1, 'bench-large-template@example.com', 'Bench template', 'enterprise')`,
    [templateCreatorId],
  );
  await db.query(
    `INSERT INTO api_keys (id, creator_id, key_hash, display_prefix, environment) VALUES ($1, $2, $3, $4, 'live')`,
    [ulid(), templateCreatorId, hashApiKey(templateKey), displayPrefixOf(templateKey)],
  );
  await db.query(
    `INSERT INTO network_accounts (creator_id, network_id, affiliate_id)
     SELECT $1, n.id, $3 FROM unnest($2::varchar[]) AS n(id)`,
    [templateCreatorId, NETWORKS, AFFILIATE_PLACEHOLDER],
  );
  return { templateCreatorId, templateKey };
}

/** One template link per product URL, created through the API: the rows the service writes. */
async function createTemplates(baseUrl, apiKey, productUrls) {
  const templateIds = [];
  for (const url of productUrls) {
    const response = await fetch(`${baseUrl}/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        originalUrl: `${url}${url.includes('?') ? '&' : '?'}v=${LINK_PLACEHOLDER}`,
      }),
    });
    const body = await response.json();
    if (response.status !== 201) throw new Error(`template create failed: ${JSON.stringify(body)}`);
    templateIds.push(body.data.link.linkId);
  }
  return templateIds;
}

/**
 * Copies the templates into `shape.links` links in SQL: link n belongs to creator n mod C and
 * copies template floor(n / C) mod T, so every creator has links of every template. The
 * secondary indexes (trigram GINs among them) and the foreign key are dropped for the load
 * and made again after, from their own definitions: building an index once is far cheaper
 * than a million insertions into it. Two connections share the work (one per core).
 */
async function seedLinks(dbUrl, shape, { templateIds, templateCreatorId }) {
  const pool = new Pool({
    connectionString: dbUrl,
    max: SEED_CONNECTIONS,
    options: '-c maintenance_work_mem=256MB',
  });
  try {
    // Plain (unlogged) tables, not temporary ones: every connection of the pool reads them.
    // A trace without placeholders (the usual case) is copied as it is, not parsed per link.
    await pool.query(
      `CREATE UNLOGGED TABLE bench_seed_templates AS
         SELECT array_position($1::varchar[], id) - 1 AS template_ix,
                crc_trace::text ~ '${LINK_PLACEHOLDER}|${AFFILIATE_PLACEHOLDER}' AS trace_has_placeholder, *
           FROM links WHERE id = ANY($1)`,
      [templateIds],
    );
    await pool.query(
      `CREATE UNLOGGED TABLE bench_seed_creators AS
         SELECT (regexp_match(email, '^bench-large-(\\d+)@'))[1]::int - 1 AS creator_ix, id
           FROM creators WHERE email ~ '^bench-large-\\d+@'`,
    );
    await pool.query('CREATE UNIQUE INDEX ON bench_seed_creators (creator_ix)');
    const columns = (
      await pool.query(
        `SELECT column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = 'links' ORDER BY ordinal_position`,
      )
    ).rows.map((row) => row.column_name);
    const n = '(($2::bigint + l.ord - 1))';
    const perLink = {
      id: 'l.id',
      creator_id: 'c.id',
      title: `left(t.title, 280) || ' ' || ${n}`,
      original_url: `replace(t.original_url, '${LINK_PLACEHOLDER}', ${n}::text)`,
      canonical_url: `replace(t.canonical_url, '${LINK_PLACEHOLDER}', ${n}::text)`,
      routed_url: `replace(replace(t.routed_url, '${LINK_PLACEHOLDER}', ${n}::text), '${AFFILIATE_PLACEHOLDER}', 'bench' || c.creator_ix)`,
      crc_trace: `CASE WHEN t.trace_has_placeholder THEN replace(replace(t.crc_trace::text, '${LINK_PLACEHOLDER}', ${n}::text), '${AFFILIATE_PLACEHOLDER}', 'bench' || c.creator_ix)::jsonb ELSE t.crc_trace END`,
      created_at: 'now()',
      updated_at: 'now()',
      // As a link is created: the templates' own probes (run by the server in the meantime)
      // say nothing of the copies.
      deep_link_status: `'unchecked'`,
      deep_link_checked_at: 'NULL',
      health_status: `'unknown'`,
      last_health_check_at: 'NULL',
    };
    const insert = `
      INSERT INTO links (${columns.map((column) => `"${column}"`).join(', ')})
      SELECT ${columns.map((column) => perLink[column] ?? `t."${column}"`).join(', ')}
        FROM unnest($1::varchar[]) WITH ORDINALITY AS l(id, ord)
        JOIN bench_seed_creators c ON c.creator_ix = ${n} % ${shape.creators}
        JOIN bench_seed_templates t ON t.template_ix = (${n} / ${shape.creators}) % ${templateIds.length}`;

    const indexes = (
      await pool.query(
        `SELECT i.indexname, i.indexdef FROM pg_indexes i
          WHERE i.schemaname = current_schema() AND i.tablename = 'links'
            AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`,
      )
    ).rows;
    const foreignKeys = (
      await pool.query(
        `SELECT conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint
          WHERE conrelid = 'links'::regclass AND contype = 'f'`,
      )
    ).rows;
    for (const { indexname } of indexes) await pool.query(`DROP INDEX "${indexname}"`);
    for (const { conname } of foreignKeys) {
      await pool.query(`ALTER TABLE links DROP CONSTRAINT "${conname}"`);
    }
    const startedAt = Date.now();
    const starts = [];
    for (let start = 0; start < shape.links; start += LINKS_PER_STATEMENT) starts.push(start);
    // The pool runs SEED_CONNECTIONS statements at a time and queues the rest.
    await Promise.all(
      starts.map((start) => {
        const ids = [];
        for (let i = start; i < Math.min(shape.links, start + LINKS_PER_STATEMENT); i++) {
          ids.push(linkIdOf(i));
        }
        return pool.query(insert, [ids, start]);
      }),
    );
    // The templates and their creator go (the foreign key that would cascade is down): the
    // database holds exactly the profile's links.
    await pool.query('DELETE FROM links WHERE creator_id = $1', [templateCreatorId]);
    await pool.query('DELETE FROM creators WHERE id = $1', [templateCreatorId]);
    await pool.query('DROP TABLE bench_seed_templates, bench_seed_creators');
    const writtenAt = Date.now();
    await Promise.all(indexes.map(({ indexdef }) => pool.query(indexdef)));
    for (const { conname, definition } of foreignKeys) {
      await pool.query(`ALTER TABLE links ADD CONSTRAINT "${conname}" ${definition}`);
    }
    await pool.query('ANALYZE creators, network_accounts, links');
    console.log(
      `bench: ${shape.links} links written in ${seconds(writtenAt - startedAt)}s; ${indexes.length} indexes and ${foreignKeys.length} foreign key made in ${seconds(Date.now() - writtenAt)}s`,
    );
  } finally {
    await pool.end();
  }
}

/**
 * The large profile's side of the bench. `tools` carries the bench's own helpers (store
 * reset, CLI, key minting), so this module holds only what differs.
 */
function largeProfile({ env, dbUrl, tools }) {
  const shape = largeProfileShape(env);
  const marker = markerOf(shape);
  let seeding = null;
  let seedStartedAt = 0;

  /** Before the service starts: reuse the seeded database, or reset it and write creators. */
  async function prepare() {
    seedStartedAt = Date.now();
    const reused = (await readMarker(dbUrl)) === marker;
    if (reused) {
      await tools.flushRedis();
    } else {
      await tools.resetStores();
    }
    tools.runCli(['db', 'migrate']);
    tools.runCli(['db', 'seed']);
    const db = await connect(dbUrl);
    try {
      // The seed wrote the plans again: lift the Enterprise window after it (see above).
      await db.query(`UPDATE plans SET edge_clicks_per_minute = $1 WHERE id = 'enterprise'`, [
        BENCH_ENTERPRISE_CLICKS_PER_MINUTE,
      ]);
      if (reused) {
        // Only the clicks of earlier runs differ from a fresh seed (quota counters are rebuilt
        // from them, so they must go with Redis).
        await db.query('TRUNCATE clicks, excluded_hits');
      } else {
        seeding = await seedCreators(db, shape, tools);
      }
    } finally {
      await db.end();
    }
    return { reused };
  }

  /** With the service up: the links, when the database was not reused; then the creators' ids. */
  async function afterStart(baseUrl) {
    const db = await connect(dbUrl);
    try {
      let seedSeconds = null;
      if (seeding !== null) {
        const templateIds = await createTemplates(baseUrl, seeding.templateKey, tools.productUrls);
        await seedLinks(dbUrl, shape, {
          templateIds,
          templateCreatorId: seeding.templateCreatorId,
        });
        await writeMarker(db, marker);
        seedSeconds = seconds(Date.now() - seedStartedAt);
      }
      const { rows } = await db.query(
        `SELECT id FROM creators WHERE email LIKE 'bench-large-%' ORDER BY id`,
      );
      const [{ count }] = (await db.query('SELECT count(*)::int AS count FROM links')).rows;
      if (count !== shape.links) {
        throw new Error(`expected ${shape.links} links, found ${count}: drop the database`);
      }
      return { creatorIds: rows.map((row) => row.id), linkCount: count, seedSeconds };
    } finally {
      await db.end();
    }
  }

  return { shape, prepare, afterStart };
}

/**
 * Link ids visited by position, Zipf over the links: rank r is link (r × stride) mod n, a
 * permutation, so the most visited links are spread over creators and the table.
 */
function zipfLinkPaths(shape, sampler) {
  const stride = [7919, 104729, 1299709].find((prime) => shape.links % prime !== 0);
  return () => `/r/${linkIdOf((sampler() * stride) % shape.links)}`;
}

module.exports = { largeProfile, zipfLinkPaths, linkIdOf };
