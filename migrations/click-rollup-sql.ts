/**
 * The SQL of the click rollups' statement-level triggers, their views and their tables, as the
 * migrations that change the set of creator rollups write it (docs/analytics.md "How they stay
 * exact"): every writer upserts the link rollup, and the creator rollups only for clicks of
 * settled hours, each aggregated per key and upserted in key order, the rollups in list order.
 *
 * Migrations already applied ran this SQL: a change here must leave what it generates for
 * them as it was (a new shape of trigger belongs in a module of its own).
 */
const HOUR = `date_trunc('hour', clicked_at, 'UTC')`;
const DAY = `(clicked_at AT TIME ZONE 'UTC')::date`;

export interface Rollup {
  table: string;
  /** The columns a row is unique by, in lock order, and how a click's value is taken. */
  key: readonly (readonly [column: string, value?: string])[];
  /** Exact sums behind the averages, and the clicks column each adds up. */
  sums: readonly (readonly [column: string, of: string])[];
}

export type CreatorRollup = Rollup & { view: string };

const SUMS = [
  ['confidence_sum', 'confidence'],
  ['epc_sum', 'normalized_epc_usd'],
] as const;

/** As in ClickRollups1764450000000: every writer touches the rollups in list order. */
export const LINKS: Rollup = {
  table: 'click_rollup_links',
  key: [
    ['creator_id'],
    ['environment'],
    ['link_id'],
    ['hour', HOUR],
    ['merchant_id'],
    ['network_id'],
    ['preset'],
    ['outcome'],
    ['region'],
    ['visitor_country'],
    ['device_class'],
  ],
  sums: SUMS,
};

export const ROUTE_ROLLUPS: readonly CreatorRollup[] = [
  {
    table: 'click_rollup_route_days',
    view: 'click_rollup_route_days_all',
    key: [
      ['creator_id'],
      ['environment'],
      ['day', DAY],
      ['merchant_id'],
      ['network_id'],
      ['preset'],
      ['outcome'],
    ],
    sums: SUMS,
  },
  {
    table: 'click_rollup_route_hours',
    view: 'click_rollup_route_hours_all',
    key: [['creator_id'], ['environment'], ['hour', HOUR], ['network_id'], ['outcome']],
    sums: [],
  },
];

/** Before ClickRollupAudienceSplit1764550000000: one audience rollup by country and device. */
export const AUDIENCE_HOURS: CreatorRollup = {
  table: 'click_rollup_audience_hours',
  view: 'click_rollup_audience_hours_all',
  key: [['creator_id'], ['environment'], ['hour', HOUR], ['visitor_country'], ['device_class']],
  sums: [],
};

/** Since ClickRollupAudienceSplit1764550000000: one by country, one by device. */
export const COUNTRY_HOURS: CreatorRollup = {
  table: 'click_rollup_country_hours',
  view: 'click_rollup_country_hours_all',
  key: [['creator_id'], ['environment'], ['hour', HOUR], ['visitor_country']],
  sums: [],
};
export const DEVICE_HOURS: CreatorRollup = {
  table: 'click_rollup_device_hours',
  view: 'click_rollup_device_hours_all',
  key: [['creator_id'], ['environment'], ['hour', HOUR], ['device_class']],
  sums: [],
};

/** Since ClickRollupRegionDays1764600000000: clicks by day and route region, for earnings. */
export const REGION_DAYS: CreatorRollup = {
  table: 'click_rollup_region_days',
  view: 'click_rollup_region_days_all',
  key: [['creator_id'], ['environment'], ['day', DAY], ['network_id'], ['region']],
  sums: [],
};
/** The same by merchant too: the realised EPC per route that learned routing blends in. */
export const MERCHANT_REGION_DAYS: CreatorRollup = {
  table: 'click_rollup_merchant_region_days',
  view: 'click_rollup_merchant_region_days_all',
  key: [['creator_id'], ['environment'], ['day', DAY], ['merchant_id'], ['network_id'], ['region']],
  sums: [],
};

/**
 * Since ClickSources1764730000000: the link rollup and the device rollup keyed by the click's
 * source too (`link` or `qr`), so a series by source is read like one by device.
 */
export const LINKS_BY_SOURCE: Rollup = { ...LINKS, key: [...LINKS.key, ['source']] };
export const DEVICE_SOURCE_HOURS: CreatorRollup = {
  ...DEVICE_HOURS,
  key: [...DEVICE_HOURS.key, ['source']],
};

/** Column types as in `clicks` (ClickRollups1764450000000). */
const COLUMN_TYPES: Record<string, string> = {
  creator_id: 'varchar(26) NOT NULL',
  environment: 'varchar(4) NOT NULL',
  hour: 'timestamptz NOT NULL',
  day: 'date NOT NULL',
  merchant_id: 'varchar(64)',
  network_id: 'varchar(40)',
  region: 'varchar(10)',
  visitor_country: 'char(2)',
  device_class: 'varchar(10) NOT NULL',
  source: 'varchar(8) NOT NULL',
};

/** How a statement's transition tables change the rollups: rows in, rows out, or both. */
export const CHANGES = {
  insert: {
    source: (where: string) => `(SELECT * FROM new_clicks${where}) AS changed`,
    clicks: 'count(*)',
    sumOf: (column: string) => `sum(${column})`,
    rows: ['new_clicks'],
  },
  delete: {
    source: (where: string) => `(SELECT * FROM old_clicks${where}) AS changed`,
    clicks: '-count(*)',
    sumOf: (column: string) => `-sum(${column})`,
    rows: ['old_clicks'],
  },
  update: {
    source: (where: string) =>
      `(SELECT *, 1 AS sign FROM new_clicks${where} UNION ALL SELECT *, -1 FROM old_clicks${where}) AS changed`,
    clicks: 'sum(sign)',
    sumOf: (column: string) => `sum(sign * ${column})`,
    rows: ['new_clicks', 'old_clicks'],
  },
} as const;

export type Change = keyof typeof CHANGES;

/** As in ClickRollupWatermark1764520000000: aggregated per key, upserted in key order. */
function upsertSql({ table, key, sums }: Rollup, change: Change, where = ''): string {
  const { source, clicks, sumOf } = CHANGES[change];
  const positions = key.map((_, i) => i + 1).join(', ');
  const columns = [...key.map(([column]) => column), 'clicks', ...sums.map(([column]) => column)];
  const aggregates = [clicks, ...sums.map(([, of]) => sumOf(of))];
  const values = [...key.map(([column, value]) => value ?? column), ...aggregates];
  const having =
    change === 'update' ? `HAVING ${aggregates.map((value) => `${value} <> 0`).join(' OR ')}` : '';
  const increments = ['clicks', ...sums.map(([column]) => column)].map(
    (column) => `${column} = rollup.${column} + excluded.${column}`,
  );
  return `
    INSERT INTO ${table} AS rollup (${columns.join(', ')})
    SELECT ${values.join(', ')}
      FROM ${where === '' && change !== 'update' ? CHANGES[change].rows[0] : source(where)}
     GROUP BY ${positions} ${having}
     ORDER BY ${positions}
    ON CONFLICT (${key.map(([column]) => column).join(', ')}) DO UPDATE SET ${increments.join(', ')};`;
}

/** Rows a removal brought to zero clicks: an empty group is no group at all. */
function dropEmptySql({ table, key }: Rollup, where = ''): string {
  const [bucket, value] = key.find(([column]) => column === 'hour' || column === 'day') ?? [];
  return `
    DELETE FROM ${table}
     WHERE clicks = 0
       AND (creator_id, environment, ${bucket}) IN
           (SELECT DISTINCT creator_id, environment, ${value} FROM old_clicks${where});`;
}

export const changeSql = (rollup: Rollup, change: Change, where = ''): string =>
  upsertSql(rollup, change, where) + (change === 'insert' ? '' : dropEmptySql(rollup, where));

/**
 * The trigger function of ClickRollupWatermark1764520000000 over these creator rollups: the
 * link rollup takes every changed click (by `linksSql`: since ClickRollupLinkDeltas1764620000000
 * through its deltas), the creator rollups the settled ones only.
 */
export function functionSql(
  change: Change,
  creatorRollups: readonly CreatorRollup[],
  linksSql = changeSql(LINKS, change),
): string {
  const settled = ' WHERE clicked_at < settled_before';
  const anySettled = CHANGES[change].rows
    .map((rows) => `EXISTS (SELECT FROM ${rows}${settled})`)
    .join(' OR ');
  return `
    CREATE OR REPLACE FUNCTION click_rollups_on_${change}() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      settled_before timestamptz;
    BEGIN
      ${linksSql}
      SELECT hour INTO settled_before FROM click_rollup_watermark;
      IF ${anySettled} THEN
        ${creatorRollups.map((rollup) => changeSql(rollup, change, settled)).join('\n')}
      END IF;
      RETURN NULL;
    END $$`;
}

/** A creator rollup's column as the link rollup's rows make it: a day from their hour. */
export const fromLinksColumn = (column: string): string =>
  column === 'day' ? `(hour AT TIME ZONE 'UTC')::date AS day` : column;

/** A creator rollup's settled rows, and the link rollup's rows after the watermark. */
export function viewSql(rollup: CreatorRollup): string {
  const columns = [
    ...rollup.key.map(([column]) => column),
    'clicks',
    ...rollup.sums.map(([c]) => c),
  ];
  return `
    CREATE VIEW ${rollup.view} AS
    SELECT ${columns.join(', ')} FROM ${rollup.table}
    UNION ALL
    SELECT ${columns.map(fromLinksColumn).join(', ')} FROM click_rollup_links
     WHERE hour >= click_rollup_settled_before()`;
}

export function createTableSql({ table, key }: Rollup): string {
  const columns = [
    ...key.map(([column]) => `${column} ${COLUMN_TYPES[column]}`),
    'clicks integer NOT NULL',
  ];
  return `
    CREATE TABLE ${table} (
      ${columns.join(',\n      ')},
      CONSTRAINT ${table}_key UNIQUE NULLS NOT DISTINCT (${key.map(([column]) => column).join(', ')})
    ) WITH (fillfactor = 80)`;
}

/** A creator rollup's settled rows made from the link rollup's hours before the watermark. */
export function settledFromLinksSql({ table, key }: Rollup): string {
  const columns = key.map(([column]) => column).join(', ');
  // A day is named by its output alias (the link rollup has no column of that name).
  const fromLinks = key.map(([column]) => fromLinksColumn(column)).join(', ');
  return `
    INSERT INTO ${table} (${columns}, clicks)
    SELECT ${fromLinks}, sum(clicks)
      FROM click_rollup_links
     WHERE hour < (SELECT hour FROM click_rollup_watermark)
     GROUP BY ${columns}
     ORDER BY ${columns}`;
}

export const lockSql = (creatorRollups: readonly CreatorRollup[]): string =>
  `LOCK TABLE ${[LINKS, ...creatorRollups].map((rollup) => rollup.table).join(', ')} IN SHARE ROW EXCLUSIVE MODE`;
