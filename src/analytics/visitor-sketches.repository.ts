import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { KeyEnvironment, RecordScope } from '../common/access/auth-context';
import { KEY_ENVIRONMENTS } from '../common/access/auth-context';
import { startOfDay, startOfNextDay } from './analytics-dates';
import type { DayRange, QuerySource } from './click-rollup-reads.repository';

/** A creator's sketches of one environment and day: its links' and its own (linkId null). */
export interface SketchDay {
  creatorId: string;
  environment: KeyEnvironment;
  day: string;
}

/** A sketch as stored: Redis's serialisation of the registers, and their count. */
export interface StoredSketch {
  linkId: string | null;
  visitors: number;
  registers: Buffer;
}

/** One day of a scope's sketch; `registers` only where the caller asked for them. */
export interface DailySketch {
  day: string;
  visitors: number;
  registers: Buffer | null;
}

const ENVIRONMENTS_SQL = KEY_ENVIRONMENTS.map((environment) => `('${environment}')`).join(', ');

/** `link_id` of one link, or the creator's row (null): two statements, both on the key's index. */
const linkCondition = (linkId: string | null, placeholder: string): string =>
  linkId === null ? `link_id IS NULL AND ${placeholder}::text IS NULL` : `link_id = ${placeholder}`;

/** Sketches of the creators `$1` before the day `$2` (on the key's index, which leads with them). */
const OLDER_SKETCHES_SQL = `visitor_sketches
  WHERE creator_id = ANY($1) AND environment IN (${KEY_ENVIRONMENTS.map((environment) => `'${environment}'`).join(', ')})
    AND day < $2::date`;

/**
 * The unique-visitor sketches of the days that are over (migration
 * VisitorSketches1764500000000): the reads of a scope's days, on whatever source the caller
 * holds (an analytics slot), and the sketch mover's statements (`lockStored` and `upsert` in
 * its transaction).
 */
@Injectable()
export class VisitorSketchesRepository {
  /** The serving pool: the mover's reads and writes (the API's reads name their source). */
  constructor(@InjectDataSource() private readonly serving: DataSource) {}

  /** The stored sketches of one link (or the scope's own, `linkId` null) over inclusive days. */
  async registersOf(
    source: QuerySource,
    scope: RecordScope,
    linkId: string | null,
    days: Required<DayRange>,
  ): Promise<Buffer[]> {
    const rows = (await source.query(
      `SELECT registers FROM visitor_sketches
        WHERE creator_id = $1 AND environment = $2 AND ${linkCondition(linkId, '$3')}
          AND day >= $4::date AND day <= $5::date AND visitors > 0`,
      [scope.creatorId, scope.environment, linkId, days.from, days.to],
    )) as { registers: Buffer }[];
    return rows.map((row) => row.registers);
  }

  /**
   * Each stored day's count of one link (or the scope), and its registers for the days from
   * `registersFrom` on only (those the caller merges with the key-value store's), so a long
   * series reads a number a day, not a sketch.
   */
  async dailyOf(
    source: QuerySource,
    scope: RecordScope,
    linkId: string | null,
    days: Required<DayRange>,
    registersFrom: string,
  ): Promise<DailySketch[]> {
    const rows = (await source.query(
      `SELECT day::text AS day, visitors,
              CASE WHEN day >= $6::date THEN registers END AS registers
         FROM visitor_sketches
        WHERE creator_id = $1 AND environment = $2 AND ${linkCondition(linkId, '$3')}
          AND day >= $4::date AND day <= $5::date`,
      [scope.creatorId, scope.environment, linkId, days.from, days.to, registersFrom],
    )) as { day: string; visitors: number; registers: Buffer | null }[];
    return rows;
  }

  /** The days of the inclusive range not moved yet, oldest first. */
  async daysNotMoved(days: Required<DayRange>): Promise<string[]> {
    const rows = await this.serving.query<{ day: string }[]>(
      `SELECT candidate.day::date::text AS day
         FROM generate_series($1::date, $2::date, interval '1 day') AS candidate (day)
        WHERE NOT EXISTS (SELECT 1 FROM visitor_sketch_moves m WHERE m.day = candidate.day::date)
        ORDER BY 1`,
      [days.from, days.to],
    );
    return rows.map((row) => row.day);
  }

  async markMoved(day: string, sketches: number): Promise<void> {
    await this.serving.query(
      `INSERT INTO visitor_sketch_moves (day, sketches) VALUES ($1::date, $2)
       ON CONFLICT (day) DO UPDATE SET moved_at = now(), sketches = excluded.sketches`,
      [day, sketches],
    );
  }

  /**
   * The creators and environments with counted clicks on a day: one probe of the route days'
   * key per creator and environment, rather than a scan of the day's rows (that key leads
   * with the creator); through the view that adds the link rollup's hours not settled yet
   * (migration ClickRollupWatermark1764520000000), such as the day's last hour just after it.
   */
  async creatorsWithClicksOn(day: string): Promise<SketchDay[]> {
    const rows = await this.serving.query<{ creator_id: string; environment: KeyEnvironment }[]>(
      `SELECT c.id AS creator_id, e.environment
         FROM creators c CROSS JOIN (VALUES ${ENVIRONMENTS_SQL}) AS e (environment)
        WHERE EXISTS (SELECT 1 FROM click_rollup_route_days_all r
                       WHERE r.creator_id = c.id AND r.environment = e.environment
                         AND r.day = $1::date)
        ORDER BY 1, 2`,
      [day],
    );
    return rows.map((row) => ({ creatorId: row.creator_id, environment: row.environment, day }));
  }

  /** The links with counted clicks of a creator's environment on a day, from the link rollup. */
  async linksClickedOn(of: SketchDay): Promise<string[]> {
    const rows = await this.serving.query<{ link_id: string }[]>(
      `SELECT DISTINCT link_id FROM click_rollup_links_all
        WHERE creator_id = $1 AND environment = $2
          AND hour >= $3::timestamptz AND hour < $4::timestamptz
        ORDER BY 1`,
      [of.creatorId, of.environment, startOfDay(of.day), startOfNextDay(of.day)],
    );
    return rows.map((row) => row.link_id);
  }

  /**
   * In one transaction: locks the stored sketches among these links (null: the creator's),
   * hands them to `merge`, and writes what it answers over them. A failure rolls back.
   */
  async mergeIntoStored(
    of: SketchDay,
    linkIds: readonly (string | null)[],
    merge: (stored: StoredSketch[]) => StoredSketch[],
  ): Promise<void> {
    const session = this.serving.createQueryRunner();
    await session.startTransaction();
    try {
      const merged = merge(await this.lockStored(session, of, linkIds));
      await this.upsert(session, of, merged);
      await session.commitTransaction();
    } catch (error) {
      await session.rollbackTransaction();
      throw error;
    } finally {
      await session.release();
    }
  }

  /** The stored sketches among these links, locked for the transaction under way. */
  private async lockStored(
    session: QuerySource,
    of: SketchDay,
    linkIds: readonly (string | null)[],
  ): Promise<StoredSketch[]> {
    const links = linkIds.filter((linkId): linkId is string => linkId !== null);
    const rows = (await session.query(
      `SELECT link_id, visitors, registers FROM visitor_sketches
        WHERE creator_id = $1 AND environment = $2 AND day = $3::date
          AND (link_id = ANY($4::varchar[]) OR (link_id IS NULL AND $5))
        ORDER BY link_id NULLS FIRST
        FOR UPDATE`,
      [of.creatorId, of.environment, of.day, links, links.length < linkIds.length],
    )) as { link_id: string | null; visitors: number; registers: Buffer }[];
    return rows.map((row) => ({
      linkId: row.link_id,
      visitors: row.visitors,
      registers: row.registers,
    }));
  }

  /** Up to `limit` creators with stored sketches after `after`, by a loose index scan of the key. */
  async findCreatorsWithSketches(after: string, limit: number): Promise<string[]> {
    const rows = await this.serving.query<{ id: string }[]>(
      `WITH RECURSIVE creators(id, n) AS (
         SELECT (SELECT min(creator_id) FROM visitor_sketches WHERE creator_id > $1), 1
         UNION ALL
         SELECT (SELECT min(creator_id) FROM visitor_sketches WHERE creator_id > creators.id), n + 1
           FROM creators WHERE creators.id IS NOT NULL AND n < $2)
       SELECT id FROM creators WHERE id IS NOT NULL`,
      [after, limit],
    );
    return rows.map((row) => row.id);
  }

  /** The creators' sketches of the days before `before` (a UTC day): how many would go. */
  async countBefore(creatorIds: string[], before: string): Promise<number> {
    const rows = await this.serving.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM ${OLDER_SKETCHES_SQL}`,
      [creatorIds, before],
    );
    return rows[0].count;
  }

  /** Deletes at most `limit` of the creators' sketches before `before`; answers how many. */
  async deleteBefore(creatorIds: string[], before: string, limit: number): Promise<number> {
    const rows = await this.serving.query<{ count: number }[]>(
      `WITH deleted AS (
         DELETE FROM visitor_sketches
          WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${OLDER_SKETCHES_SQL} LIMIT $3))
         RETURNING 1)
       SELECT count(*)::int AS count FROM deleted`,
      [creatorIds, before, limit],
    );
    return rows[0].count;
  }

  /** Writes these sketches of the day over whatever was stored (merged in before). */
  private async upsert(
    session: QuerySource,
    of: SketchDay,
    sketches: StoredSketch[],
  ): Promise<void> {
    if (sketches.length === 0) return;
    await session.query(
      `INSERT INTO visitor_sketches (creator_id, environment, link_id, day, visitors, registers)
       SELECT $1, $2, link_id, $3::date, visitors, registers
         FROM unnest($4::varchar[], $5::int[], $6::bytea[]) AS s (link_id, visitors, registers)
       ON CONFLICT ON CONSTRAINT visitor_sketches_key
       DO UPDATE SET visitors = excluded.visitors, registers = excluded.registers`,
      [
        of.creatorId,
        of.environment,
        of.day,
        sketches.map((sketch) => sketch.linkId),
        sketches.map((sketch) => sketch.visitors),
        sketches.map((sketch) => sketch.registers),
      ],
    );
  }
}
