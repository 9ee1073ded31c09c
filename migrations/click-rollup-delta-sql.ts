/**
 * The SQL of the link rollup's deltas (migration ClickRollupLinkDeltas1764620000000,
 * docs/analytics.md "Writer cost"): click writers append their clicks, aggregated per link
 * rollup key, to a table with no unique key, and a compaction folds them into the link
 * rollup, many clicks per upserted row. Reads add the deltas up beside the link rows.
 *
 * Migrations already applied ran this SQL: a change here must leave what it generates for
 * them as it was.
 */
import {
  type Change,
  changeSql,
  type CreatorRollup,
  fromLinksColumn,
  functionSql,
  LINKS,
  type Rollup,
} from './click-rollup-sql';

export const LINK_DELTAS = 'click_rollup_link_deltas';
/** The link rollup's rows and the deltas not yet folded into them: what reads add up. */
export const LINKS_ALL = 'click_rollup_links_all';
export const COMPACT_FUNCTION = 'click_rollup_link_deltas_compact';

/** The link rollup's shape these statements are made for: LINKS, or a later one. */
const shapeOf = (links: Rollup) => {
  const key = links.key.map(([column]) => column);
  return {
    key,
    columns: [...key, 'clicks', ...links.sums.map(([column]) => column)],
    positions: key.map((_, i) => i + 1).join(', '),
  };
};

/**
 * The link rollup's columns, no constraint: an append is a heap insert and the entry of the
 * one index by which reads find a creator's deltas.
 */
export const CREATE_DELTAS_SQL = [
  `CREATE TABLE ${LINK_DELTAS} (LIKE click_rollup_links)`,
  `CREATE INDEX ${LINK_DELTAS}_creator_hour_idx ON ${LINK_DELTAS} (creator_id, environment, hour)`,
];

/** The insert trigger's share of the link rollup: the statement's clicks appended, aggregated. */
function appendSql(links: Rollup): string {
  const { columns, positions } = shapeOf(links);
  return `
    INSERT INTO ${LINK_DELTAS} (${columns.join(', ')})
    SELECT ${[
      ...links.key.map(([column, value]) => value ?? column),
      'count(*)',
      ...links.sums.map(([, of]) => `sum(${of})`),
    ].join(', ')}
      FROM new_clicks
     GROUP BY ${positions};`;
}

/**
 * Folds up to `max_rows` deltas (null: all) into the link rollup in one statement, so a
 * reader's snapshot sees each click in exactly one of them; answers the deltas moved. Bounded,
 * so that a backlog (a bulk load of history) is folded in statements that each end within
 * the serving statement timeout. The link rollup is locked first, as by every writer of it
 * (the settling and the rebuild lock it before the deltas, and wait for a compaction or make
 * it wait), then one compaction at a time: two would lock the same deltas in whatever order
 * their scans met them.
 */
export function compactFunctionSql(links: Rollup, create = 'CREATE'): string {
  const { key, columns, positions } = shapeOf(links);
  return `
  ${create} FUNCTION ${COMPACT_FUNCTION}(max_rows integer) RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE
    moved_rows integer;
  BEGIN
    LOCK TABLE click_rollup_links IN ROW EXCLUSIVE MODE;
    PERFORM pg_advisory_xact_lock(hashtext('${LINK_DELTAS}'));
    WITH moved AS (
      DELETE FROM ${LINK_DELTAS}
       WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${LINK_DELTAS} LIMIT max_rows))
      RETURNING *),
    folded AS (
      INSERT INTO click_rollup_links AS rollup (${columns.join(', ')})
      SELECT ${[...key, 'sum(clicks)', ...links.sums.map(([column]) => `sum(${column})`)].join(', ')}
        FROM moved
       GROUP BY ${positions}
       ORDER BY ${positions}
      ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${[
        'clicks',
        ...links.sums.map(([column]) => column),
      ]
        .map((column) => `${column} = rollup.${column} + excluded.${column}`)
        .join(', ')}
      RETURNING 1)
    -- A data-modifying CTE runs to completion whether or not the query reads it.
    SELECT count(*) INTO moved_rows FROM moved;
    RETURN moved_rows;
  END $$`;
}

export const COMPACT_FUNCTION_SQL = compactFunctionSql(LINKS);

/**
 * The trigger functions: an insert appends deltas; a removal or update (the sandbox reset,
 * a fix in psql: rare) folds the deltas first, then changes the link rollup in place as
 * before, so a removed click never leaves a row below zero.
 */
export function deltaFunctionSql(
  change: Change,
  creatorRollups: readonly CreatorRollup[],
  links = LINKS,
): string {
  const linksSql =
    change === 'insert'
      ? appendSql(links)
      : `PERFORM ${COMPACT_FUNCTION}(NULL);\n${changeSql(links, change)}`;
  return functionSql(change, creatorRollups, linksSql);
}

/** A creator rollup's settled rows, and the link rollup's rows and deltas after the watermark. */
export function viewWithDeltasSql(rollup: CreatorRollup): string {
  const columns = [
    ...rollup.key.map(([column]) => column),
    'clicks',
    ...rollup.sums.map(([column]) => column),
  ];
  const afterWatermark = (table: string) => `
    SELECT ${columns.map(fromLinksColumn).join(', ')} FROM ${table}
     WHERE hour >= click_rollup_settled_before()`;
  return `
    CREATE OR REPLACE VIEW ${rollup.view} AS
    SELECT ${columns.join(', ')} FROM ${rollup.table}
    UNION ALL ${afterWatermark('click_rollup_links')}
    UNION ALL ${afterWatermark(LINK_DELTAS)}`;
}

export function linksAllViewSql(links: Rollup): string {
  const { columns } = shapeOf(links);
  return `
  CREATE VIEW ${LINKS_ALL} AS
  SELECT ${columns.join(', ')} FROM click_rollup_links
  UNION ALL
  SELECT ${columns.join(', ')} FROM ${LINK_DELTAS}`;
}

export const LINKS_ALL_VIEW_SQL = linksAllViewSql(LINKS);
