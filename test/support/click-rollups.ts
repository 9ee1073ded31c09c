import type { INestApplication } from '@nestjs/common';
import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { ulid } from 'ulid';
import { ClickRecordMessage, encodeClickRecord } from '../../src/analytics/click-record-codec';
import { ClickRollupsRepository } from '../../src/analytics/click-rollups.repository';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { ClickWritesRepository } from '../../src/analytics/click-writes.repository';
import { ClickEntity } from '../../src/analytics/click.entity';
import { KvStore } from '../../src/kv/kv-store';

/** A click writer as the app builds one, its background loop off. */
export function clickWriter(app: INestApplication): ClickStreamConsumer {
  return new ClickStreamConsumer(
    {
      consumerEnabled: false,
      pollIntervalMs: 250,
      claimIdleMs: 30_000,
      rollupCompactIntervalMs: 10_000,
    },
    app.get(KvStore),
    new ClickWritesRepository(app.get<Repository<ClickEntity>>(getRepositoryToken(ClickEntity))),
  );
}

/** Writes the records through the writer's insert as one batch, as read from a stream. */
export async function writeClicks(
  writer: ClickStreamConsumer,
  records: ClickRecordMessage[],
): Promise<number> {
  return writer.insert(
    records.map((record, i) => ({ id: `${i + 1}-0`, payload: encodeClickRecord(record) })),
  );
}

/** A small deterministic generator (tests must be repeatable). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const pick = <T>(random: () => number, values: readonly T[]): T =>
  values[Math.floor(random() * values.length)];

const HOUR_MS = 60 * 60 * 1000;

/**
 * Clicks over the given creators' links around the hour and day edges of `days` (UTC days),
 * with every dimension varied, nulls included.
 */
export function randomClicks(
  count: number,
  options: { seed: number; creators: { creatorId: string; linkIds: string[] }[]; days: string[] },
): ClickRecordMessage[] {
  const random = seededRandom(options.seed);
  return Array.from({ length: count }, () => {
    const { creatorId, linkIds } = pick(random, options.creators);
    const dayMs = Date.parse(`${pick(random, options.days)}T00:00:00.000Z`);
    // Either side of an hour edge, a day edge included (hour 0 and 24).
    const edgeMs = dayMs + Math.floor(random() * 25) * HOUR_MS;
    const clickedAtMs = edgeMs + pick(random, [-1, 0, 1, 1_000, -60_000, 1_799_999]);
    const outcome = pick(random, ['routed', 'routed', 'fallback', 'passthrough'] as const);
    const isPassthrough = outcome === 'passthrough';
    return {
      recordId: ulid(clickedAtMs),
      clickedAt: new Date(clickedAtMs).toISOString(),
      linkId: pick(random, linkIds),
      creatorId,
      merchantId: pick(random, ['amazon', 'asos', null]),
      region: isPassthrough ? null : pick(random, ['US', 'GB', 'EU']),
      networkId: isPassthrough ? null : pick(random, ['awin', 'amazon_associates'] as const),
      preset: pick(random, ['default', 'link_in_bio', 'long_form'] as const),
      outcome,
      normalizedEpcUsd: isPassthrough ? 0 : Math.floor(random() * 3_000_000) / 1e6,
      confidence: isPassthrough ? 0 : Math.floor(random() * 11_000) / 1e4,
      deepLinkUsed: random() < 0.5,
      privateDealApplied: false,
      visitorCountry: pick(random, ['US', 'GB', 'IN', null]),
      deviceClass: pick(random, ['desktop', 'mobile', 'tablet', 'unknown'] as const),
      environment: random() < 0.8 ? 'live' : 'test',
      ruleIndex: null,
      source: random() < 0.7 ? 'link' : 'qr',
    };
  });
}

/** The rows of the rollups, each a JSON array of its key, clicks and sums, sorted. */
export interface RollupRows {
  links: string[];
  routeDays: string[];
  routeHours: string[];
  countryHours: string[];
  deviceHours: string[];
  regionDays: string[];
  merchantRegionDays: string[];
}

/** What a rollup row is made of: a click's fields, with numbers exact in units of their scale. */
interface RollupSource {
  creatorId: string;
  environment: string;
  linkId: string;
  clickedAtMs: number;
  merchantId: string | null;
  networkId: string | null;
  preset: string;
  outcome: string;
  region: string | null;
  visitorCountry: string | null;
  deviceClass: string;
  source: string;
  /** confidence x 10^4 and EPC x 10^6: whole numbers, summed exactly. */
  confidenceUnits: number;
  epcUnits: number;
}

/** A sum as PostgreSQL prints it: the scale of the clicks column, kept by the rollups. */
const decimalOf = (units: number, scale: number): string =>
  `${Math.floor(units / 10 ** scale)}.${String(units % 10 ** scale).padStart(scale, '0')}`;

const hourOf = (ms: number): string =>
  new Date(Math.floor(ms / (60 * 60 * 1000)) * 60 * 60 * 1000).toISOString();
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const SHAPES = {
  links: (c: RollupSource) => [
    c.creatorId,
    c.environment,
    c.linkId,
    hourOf(c.clickedAtMs),
    c.merchantId,
    c.networkId,
    c.preset,
    c.outcome,
    c.region,
    c.visitorCountry,
    c.deviceClass,
    c.source,
  ],
  routeDays: (c: RollupSource) => [
    c.creatorId,
    c.environment,
    dayOf(c.clickedAtMs),
    c.merchantId,
    c.networkId,
    c.preset,
    c.outcome,
  ],
  routeHours: (c: RollupSource) => [
    c.creatorId,
    c.environment,
    hourOf(c.clickedAtMs),
    c.networkId,
    c.outcome,
  ],
  countryHours: (c: RollupSource) => [
    c.creatorId,
    c.environment,
    hourOf(c.clickedAtMs),
    c.visitorCountry,
  ],
  deviceHours: (c: RollupSource) => [
    c.creatorId,
    c.environment,
    hourOf(c.clickedAtMs),
    c.deviceClass,
    c.source,
  ],
  regionDays: (c: RollupSource) => [
    c.creatorId,
    c.environment,
    dayOf(c.clickedAtMs),
    c.networkId,
    c.region,
  ],
  merchantRegionDays: (c: RollupSource) => [
    c.creatorId,
    c.environment,
    dayOf(c.clickedAtMs),
    c.merchantId,
    c.networkId,
    c.region,
  ],
} as const;

/** The rollups the clicks make, computed here the plain way. */
export function rollupsOf(clicks: RollupSource[]): RollupRows {
  const build = (name: keyof typeof SHAPES, hasSums: boolean): string[] => {
    const groups = new Map<string, { clicks: number; confidence: number; epc: number }>();
    for (const click of clicks) {
      const key = JSON.stringify(SHAPES[name](click));
      const group = groups.get(key) ?? { clicks: 0, confidence: 0, epc: 0 };
      group.clicks++;
      group.confidence += click.confidenceUnits;
      group.epc += click.epcUnits;
      groups.set(key, group);
    }
    return [...groups.entries()]
      .map(([key, group]) =>
        JSON.stringify([
          ...(JSON.parse(key) as unknown[]),
          group.clicks,
          ...(hasSums ? [decimalOf(group.confidence, 4), decimalOf(group.epc, 6)] : []),
        ]),
      )
      .sort();
  };
  return {
    links: build('links', true),
    routeDays: build('routeDays', true),
    routeHours: build('routeHours', false),
    countryHours: build('countryHours', false),
    deviceHours: build('deviceHours', false),
    regionDays: build('regionDays', false),
    merchantRegionDays: build('merchantRegionDays', false),
  };
}

/** A click record (as written to a stream) as a rollup source. */
export function sourceOfRecord(record: ClickRecordMessage): RollupSource {
  return {
    ...record,
    clickedAtMs: Date.parse(record.clickedAt),
    confidenceUnits: Math.round(record.confidence * 1e4),
    epcUnits: Math.round(record.normalizedEpcUsd * 1e6),
  };
}

interface StoredRow {
  creator_id: string;
  environment: string;
  link_id?: string;
  hour?: Date;
  day_text?: string;
  merchant_id?: string | null;
  network_id?: string | null;
  preset?: string;
  outcome?: string;
  region?: string | null;
  visitor_country?: string | null;
  device_class?: string;
  source?: string;
  clicks: number;
  confidence_sum?: string;
  epc_sum?: string;
}

/** The creators' clicks as stored, as rollup sources. */
export async function storedClicksOf(
  app: INestApplication,
  creatorIds: string[],
): Promise<RollupSource[]> {
  const rows: (StoredRow & { clicked_at: Date; confidence: string; normalized_epc_usd: string })[] =
    await app
      .get(DataSource)
      .query(`SELECT * FROM clicks WHERE creator_id = ANY($1)`, [creatorIds]);
  return rows.map((row) => ({
    creatorId: row.creator_id,
    environment: row.environment,
    linkId: row.link_id as string,
    clickedAtMs: new Date(row.clicked_at).getTime(),
    merchantId: row.merchant_id ?? null,
    networkId: row.network_id ?? null,
    preset: row.preset as string,
    outcome: row.outcome as string,
    region: row.region ?? null,
    visitorCountry: row.visitor_country ?? null,
    deviceClass: row.device_class as string,
    source: row.source as string,
    confidenceUnits: Math.round(Number(row.confidence) * 1e4),
    epcUnits: Math.round(Number(row.normalized_epc_usd) * 1e6),
  }));
}

/** The key columns after the day of each daily creator rollup. */
const DAILY_KEYS: Record<string, string> = {
  click_rollup_route_days: 'merchant_id, network_id, preset, outcome',
  click_rollup_region_days: 'network_id, region',
  click_rollup_merchant_region_days: 'merchant_id, network_id, region',
};

/** The key columns after the hour of each hourly creator rollup. */
const HOURLY_KEYS: Record<string, string> = {
  click_rollup_route_hours: 'network_id, outcome',
  click_rollup_country_hours: 'visitor_country',
  click_rollup_device_hours: 'device_class, source',
};

/**
 * The creators' rollup rows as reads see them, in the shape of rollupsOf: the link rollup with
 * its deltas, the creator rollups through their views (their settled hours and the link
 * rollup's hours after the watermark), a group's rows in every part added up.
 */
export async function storedRollupsOf(
  app: INestApplication,
  creatorIds: string[],
): Promise<RollupRows> {
  const query = (table: string): Promise<StoredRow[]> => {
    if (table === 'click_rollup_links') {
      const keys = `creator_id, environment, link_id, hour, merchant_id, network_id, preset,
        outcome, region, visitor_country, device_class, source`;
      return app.get(DataSource).query(
        `SELECT ${keys}, sum(clicks)::int AS clicks, sum(confidence_sum) AS confidence_sum,
                sum(epc_sum) AS epc_sum
           FROM click_rollup_links_all WHERE creator_id = ANY($1) GROUP BY ${keys}`,
        [creatorIds],
      );
    }
    const isDaily = table in DAILY_KEYS;
    const keys = isDaily
      ? `creator_id, environment, day, ${DAILY_KEYS[table]}`
      : `creator_id, environment, hour, ${HOURLY_KEYS[table]}`;
    const sums =
      table === 'click_rollup_route_days'
        ? ', sum(confidence_sum) AS confidence_sum, sum(epc_sum) AS epc_sum'
        : '';
    return app.get(DataSource).query(
      `SELECT ${keys}${isDaily ? ', day::text AS day_text' : ''}, sum(clicks)::int AS clicks${sums}
         FROM ${table}_all WHERE creator_id = ANY($1) GROUP BY ${keys}`,
      [creatorIds],
    );
  };
  const hour = (row: StoredRow) => new Date(row.hour as Date).toISOString();
  const [links, routeDays, routeHours, countryHours, deviceHours, regionDays, merchantRegionDays] =
    await Promise.all([
      query('click_rollup_links'),
      query('click_rollup_route_days'),
      query('click_rollup_route_hours'),
      query('click_rollup_country_hours'),
      query('click_rollup_device_hours'),
      query('click_rollup_region_days'),
      query('click_rollup_merchant_region_days'),
    ]);
  const serialise = (rows: StoredRow[], shape: (row: StoredRow) => unknown[]) =>
    rows.map((row) => JSON.stringify(shape(row))).sort();
  return {
    links: serialise(links, (row) => [
      row.creator_id,
      row.environment,
      row.link_id,
      hour(row),
      row.merchant_id,
      row.network_id,
      row.preset,
      row.outcome,
      row.region,
      row.visitor_country,
      row.device_class,
      row.source,
      row.clicks,
      row.confidence_sum,
      row.epc_sum,
    ]),
    routeDays: serialise(routeDays, (row) => [
      row.creator_id,
      row.environment,
      row.day_text,
      row.merchant_id,
      row.network_id,
      row.preset,
      row.outcome,
      row.clicks,
      row.confidence_sum,
      row.epc_sum,
    ]),
    routeHours: serialise(routeHours, (row) => [
      row.creator_id,
      row.environment,
      hour(row),
      row.network_id,
      row.outcome,
      row.clicks,
    ]),
    countryHours: serialise(countryHours, (row) => [
      row.creator_id,
      row.environment,
      hour(row),
      row.visitor_country,
      row.clicks,
    ]),
    deviceHours: serialise(deviceHours, (row) => [
      row.creator_id,
      row.environment,
      hour(row),
      row.device_class,
      row.source,
      row.clicks,
    ]),
    regionDays: serialise(regionDays, (row) => [
      row.creator_id,
      row.environment,
      row.day_text,
      row.network_id,
      row.region,
      row.clicks,
    ]),
    merchantRegionDays: serialise(merchantRegionDays, (row) => [
      row.creator_id,
      row.environment,
      row.day_text,
      row.merchant_id,
      row.network_id,
      row.region,
      row.clicks,
    ]),
  };
}

/**
 * Rows of the creators' creator rollups that are not what the watermark says they must be:
 * the link rollup's rows of the hours before it, projected (both sides' extra rows, counted
 * in one snapshot, so a watermark moved meanwhile by another test changes nothing).
 */
export async function unsettledRowsOf(
  app: INestApplication,
  creatorIds: string[],
): Promise<number> {
  const rollups = [
    {
      table: 'click_rollup_route_days',
      key: 'creator_id, environment, day, merchant_id, network_id, preset, outcome',
      fromLinks: `creator_id, environment, (hour AT TIME ZONE 'UTC')::date, merchant_id, network_id, preset, outcome`,
      sums: ['clicks', 'confidence_sum', 'epc_sum'],
    },
    {
      table: 'click_rollup_route_hours',
      key: 'creator_id, environment, hour, network_id, outcome',
      fromLinks: 'creator_id, environment, hour, network_id, outcome',
      sums: ['clicks'],
    },
    {
      table: 'click_rollup_country_hours',
      key: 'creator_id, environment, hour, visitor_country',
      fromLinks: 'creator_id, environment, hour, visitor_country',
      sums: ['clicks'],
    },
    {
      table: 'click_rollup_device_hours',
      key: 'creator_id, environment, hour, device_class, source',
      fromLinks: 'creator_id, environment, hour, device_class, source',
      sums: ['clicks'],
    },
  ];
  const differing = rollups.map(
    ({ table, key, fromLinks, sums }) => `
      (SELECT count(*) FROM (
        (SELECT ${fromLinks}, ${sums.map((sum) => `sum(${sum})`).join(', ')} FROM click_rollup_links_all
          WHERE creator_id = ANY($1) AND hour < (SELECT hour FROM click_rollup_watermark)
          GROUP BY ${fromLinks}
         EXCEPT ALL SELECT ${key}, ${sums.join(', ')} FROM ${table} WHERE creator_id = ANY($1))
        UNION ALL
        (SELECT ${key}, ${sums.join(', ')} FROM ${table} WHERE creator_id = ANY($1)
         EXCEPT ALL
         SELECT ${fromLinks}, ${sums.map((sum) => `sum(${sum})`).join(', ')} FROM click_rollup_links_all
          WHERE creator_id = ANY($1) AND hour < (SELECT hour FROM click_rollup_watermark)
          GROUP BY ${fromLinks})) AS difference)`,
  );
  const rows: { count: string }[] = await app
    .get(DataSource)
    .query(`SELECT ${differing.join(' + ')} AS count`, [creatorIds]);
  return Number(rows[0].count);
}

/** Moves the click rollups' watermark to an hour, forward or back (as tests alone do). */
export async function moveWatermark(app: INestApplication, hour: string): Promise<void> {
  await app.get(ClickRollupsRepository).moveWatermark(new Date(hour), { canMoveBack: true });
}
