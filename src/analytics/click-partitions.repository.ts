import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ClickPartition } from './click-retention-months';

/**
 * The partitions of `clicks` and their bounds, from the catalog. A range bound prints as
 * `FOR VALUES FROM ('…') TO ('…')`, either side possibly MINVALUE or MAXVALUE; the quoted
 * values are timestamps in the session's time zone with their offset, cast back exactly.
 */
const PARTITIONS_SQL = `
  SELECT name, bound, bound = 'DEFAULT' AS is_default,
         edges[1]::timestamptz AS from_at, edges[2]::timestamptz AS to_at
    FROM (SELECT name, bound, regexp_match(bound,
            '^FOR VALUES FROM \\((?:MINVALUE|''([^'']*)'')\\) TO \\((?:MAXVALUE|''([^'']*)'')\\)$') AS edges
            FROM (SELECT c.oid::regclass::text AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
                    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                   WHERE i.inhparent = 'clicks'::regclass) AS listed) AS parsed
   ORDER BY from_at NULLS FIRST, name`;

/** The bound of one partition of clicks, by its `regclass` name (no row: no such partition). */
const BOUND_OF_SQL = `
  SELECT pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent = 'clicks'::regclass AND c.oid::regclass::text = $1`;

/**
 * The partitions of `clicks`: what the partition job creates, and what the retention asks of
 * the catalog and of the partitions themselves; the names come
 * from the catalog (`regclass` text, quoted where needed), never from a caller.
 */
@Injectable()
export class ClickPartitionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Creates the month's partition `name` over [from, to) unless it exists. */
  async createMonthPartition(name: string, from: string, to: string): Promise<void> {
    await this.dataSource.query(
      `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF clicks FOR VALUES FROM ('${from}') TO ('${to}')`,
    );
  }

  async listPartitions(): Promise<ClickPartition[]> {
    const rows: {
      name: string;
      bound: string;
      is_default: boolean;
      from_at: Date | null;
      to_at: Date | null;
    }[] = await this.dataSource.query(PARTITIONS_SQL);
    return rows.map((row) => ({
      name: row.name,
      bound: row.bound,
      isDefault: row.is_default,
      from: row.from_at === null ? null : new Date(row.from_at),
      to: row.to_at === null ? null : new Date(row.to_at),
    }));
  }

  /** Up to `limit` creators with clicks in the partition, after `after` ('' first): one probe each. */
  async findCreatorsIn(partition: ClickPartition, after: string, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `WITH RECURSIVE creators(id, n) AS (
         SELECT (SELECT min(creator_id) FROM ${partition.name} WHERE creator_id > $1), 1
         UNION ALL
         SELECT (SELECT min(creator_id) FROM ${partition.name} WHERE creator_id > creators.id), n + 1
           FROM creators WHERE creators.id IS NOT NULL AND n < $2)
       SELECT id FROM creators WHERE id IS NOT NULL`,
      [after, limit],
    );
    return rows.map((row) => row.id);
  }

  /** The partition's clicks before `before`: how many, and the oldest (null: none). */
  async findClicksBefore(
    partition: ClickPartition,
    before: Date,
  ): Promise<{ count: number; oldest: Date | null }> {
    const [row]: { count: number; oldest: Date | null }[] = await this.dataSource.query(
      `SELECT count(*)::int AS count, min(clicked_at) AS oldest
         FROM ${partition.name} WHERE clicked_at < $1`,
      [before],
    );
    return { count: row.count, oldest: row.oldest === null ? null : new Date(row.oldest) };
  }

  /**
   * Drops the partition if it is still the one listed (same name, same bound), in one short
   * transaction: `clicks` itself is locked first, as DROP TABLE would lock it, so readers and
   * writers (which lock it before its partitions) wait behind the drop instead of deadlocking
   * with it. The lock is waited for `lockTimeoutMs` at most (every query of clicks queues
   * behind a waiting one): past that, PostgreSQL's lock_not_available error. Answers whether
   * it dropped the partition.
   */
  dropPartition(partition: ClickPartition, lockTimeoutMs: number): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SET LOCAL lock_timeout = ${Math.trunc(lockTimeoutMs)}`);
      await manager.query(`LOCK TABLE ONLY clicks IN ACCESS EXCLUSIVE MODE`);
      const listed: { bound: string }[] = await manager.query(BOUND_OF_SQL, [partition.name]);
      if (listed[0]?.bound !== partition.bound) return false;
      await manager.query(`DROP TABLE ${partition.name}`);
      return true;
    });
  }
}
