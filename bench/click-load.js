'use strict';
/**
 * Click rows written straight into PostgreSQL for the analytics scale bench
 * (analytics-scale.js): a creator's month of clicks in the shape docs/analytics.md measured
 * (25 merchants, 3 presets, 6 networks, 14 countries skewed towards the first, 4 device
 * classes, 92/5/3 % routed/fallback/passthrough, over the creator's links), generated in SQL
 * by `generate_series`, one `INSERT ... SELECT` per UTC day.
 *
 * Every value is a hash of the click's position, so a load is the same rows every time, and
 * the clicks are evenly spaced over the month: click i of n is at month start + i × month / n.
 * Record ids are ULIDs of the click's instant, so each day's rows arrive in key order and the
 * primary key fills left to right.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
// The service's own lists, from its build (the bench runs against dist/ anyway).
const { NETWORK_IDS } = require('../dist/src/networks/network-ids');
const { ROUTING_PRESET_IDS } = require('../dist/src/routing/engine/routing-types');

/** The knowledge base's first 25 merchants (by file name), as docs/analytics.md's load. */
const MERCHANTS = fs
  .readdirSync(path.join(root, 'seeds/merchants'))
  .filter((name) => name.endsWith('.json'))
  .sort()
  .slice(0, 25)
  .map(
    (name) =>
      JSON.parse(fs.readFileSync(path.join(root, 'seeds/merchants', name), 'utf8')).merchantId,
  );
const NETWORKS = NETWORK_IDS.slice(0, 6);
const PRESETS = [...ROUTING_PRESET_IDS];
/** Fourteen visitor countries, skewed towards the first (about 27% US, 4% AE). */
const COUNTRIES = [
  'US',
  'IN',
  'GB',
  'DE',
  'FR',
  'BR',
  'CA',
  'AU',
  'JP',
  'MX',
  'ES',
  'IT',
  'NL',
  'AE',
];
const REGION_OF = { DE: 'EU', FR: 'EU', ES: 'EU', IT: 'EU', NL: 'EU', MX: 'US', AE: 'GB' };
const REGIONS = COUNTRIES.map((country) => REGION_OF[country] ?? country);

const DAY_MS = 24 * 60 * 60 * 1000;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** SQL: `value` (a bigint expression) in Crockford base 32, `length` characters. */
function base32Sql(value, length) {
  const characters = [];
  for (let k = length - 1; k >= 0; k--) {
    characters.push(`substr('${CROCKFORD}', ((${value} >> ${5 * k}) & 31)::int + 1, 1)`);
  }
  return characters.join(' || ');
}

/** A 31-bit hash of the click's position, one stream per `seed`. */
const hashSql = (seed) => `(hashint8extended(i, ${seed}) & 2147483647)`;

/**
 * One statement per day: clicks `$first` to `$last` of the creator's month of `$total`. The
 * link decides merchant and preset (each link sells one thing); the visitor's country and
 * device and the outcome are drawn per click, and the network follows from the link and the
 * country as routing picks it (the best route of the link's merchant in the visitor's
 * region; a fallback takes another, a passthrough none), so a link's hour holds some 60
 * combinations of country, device, network and outcome, as docs/analytics.md counted.
 */
const INSERT_DAY_SQL = `
  INSERT INTO clicks (record_id, link_id, creator_id, environment, merchant_id, region,
                      network_id, preset, outcome, normalized_epc_usd, confidence,
                      deep_link_used, private_deal_applied, visitor_country, device_class,
                      clicked_at)
  SELECT ${base32Sql('ms', 10)} || $9::text || ${base32Sql('i', 10)},
         ($4::text[])[1 + link_ix], $3, 'live',
         ($5::text[])[1 + merchant_ix], ($8::text[])[1 + country_ix],
         CASE WHEN outcome = 'passthrough' THEN NULL
              ELSE ($6::text[])[1 + (link_ix * 5 + country_ix
                                     + CASE WHEN outcome = 'fallback' THEN 1 ELSE 0 END)
                                    % ${NETWORKS.length}] END,
         ($7::text[])[1 + link_ix % ${PRESETS.length}],
         outcome,
         CASE WHEN outcome = 'passthrough' THEN 0 ELSE (${hashSql(7)} % 500000) / 1e6 END,
         CASE outcome WHEN 'routed' THEN 0.6 + (${hashSql(6)} % 5000) / 1e4
                      WHEN 'fallback' THEN 0.3 + (${hashSql(6)} % 3000) / 1e4
                      ELSE 0 END,
         outcome = 'routed' AND ${hashSql(8)} % 2 = 0, false,
         ($10::text[])[1 + country_ix],
         CASE WHEN device < 55 THEN 'mobile' WHEN device < 90 THEN 'desktop'
              WHEN device < 97 THEN 'tablet' ELSE 'unknown' END,
         timestamptz 'epoch' + ms * interval '1 millisecond'
    FROM (SELECT i, ms, link_ix, link_ix % ${MERCHANTS.length} AS merchant_ix,
                 CASE WHEN draw < 92 THEN 'routed' WHEN draw < 97 THEN 'fallback'
                      ELSE 'passthrough' END AS outcome,
                 floor(${COUNTRIES.length} * power((${hashSql(4)} % 1000000)::float8 / 1e6, 2))::int
                   AS country_ix,
                 ${hashSql(5)} % 100 AS device
            FROM (SELECT i, $11::bigint + (i * $12::bigint) / $13::bigint AS ms,
                         ${hashSql(1)} % array_length($4::text[], 1) AS link_ix,
                         ${hashSql(2)} % 100 AS draw
                    FROM generate_series($1::bigint, $2::bigint) AS i) AS drawn) AS click
  ON CONFLICT DO NOTHING`;

/** `YYYY-MM` of a month's first instant. */
const monthIdOf = (monthStartMs) => new Date(monthStartMs).toISOString().slice(0, 7);

/** The first instant of the UTC month `offset` months from the one holding `instantMs`. */
function monthStartOf(instantMs, offset = 0) {
  const date = new Date(instantMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1);
}

/** The month's partition, made as ClickPartitionsService makes it (it keeps only those ahead). */
async function ensureMonthPartition(db, monthStartMs) {
  const from = new Date(monthStartMs).toISOString().slice(0, 10);
  const to = new Date(monthStartOf(monthStartMs, 1)).toISOString().slice(0, 10);
  const name = `clicks_${from.slice(0, 7).replace('-', '_')}`;
  await db.query(
    `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF clicks FOR VALUES FROM ('${from}') TO ('${to}')`,
  );
}

/**
 * Writes `clicks` clicks of one creator over the month starting at `monthStartMs`, a day per
 * statement, on the links `linkIds` (uniformly). `slot` (0 to 1023) tells this creator-month's
 * record ids apart from every other's. `onDay` hears of each day written.
 */
async function loadCreatorMonth(db, { creatorId, linkIds, monthStartMs, clicks, slot, onDay }) {
  const monthMs = monthStartOf(monthStartMs, 1) - monthStartMs;
  const days = monthMs / DAY_MS;
  // Click i is on day floor(i × days / clicks): day d holds i from ceil(d × clicks / days).
  const firstOfDay = (day) => Math.ceil((day * clicks) / days);
  const slotText = `BNCH${CROCKFORD[Math.floor(slot / 32) % 32]}${CROCKFORD[slot % 32]}`;
  for (let day = 0; day < days; day++) {
    const [first, next] = [firstOfDay(day), firstOfDay(day + 1)];
    const startedAt = performance.now();
    if (next > first) {
      await db.query(INSERT_DAY_SQL, [
        first,
        next - 1,
        creatorId,
        linkIds,
        MERCHANTS,
        NETWORKS,
        PRESETS,
        REGIONS,
        slotText,
        COUNTRIES,
        monthStartMs,
        monthMs,
        clicks,
      ]);
    }
    onDay?.({ day: day + 1, days, clicks: next - first, ms: performance.now() - startedAt });
  }
}

module.exports = {
  COUNTRIES,
  MERCHANTS,
  ensureMonthPartition,
  loadCreatorMonth,
  monthStartOf,
};
