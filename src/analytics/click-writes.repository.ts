import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { CLICK_RECORD_FIELDS } from './click-record-codec';
import { ClickEntity } from './click.entity';

/**
 * The write side of the `clicks` table: the stream consumer's batch insert, on the serving
 * pool (ClicksRepository reads through the analytics pool, which the click worker does not
 * open).
 */
@Injectable()
export class ClickWritesRepository {
  constructor(@InjectRepository(ClickEntity) private readonly clicks: Repository<ClickEntity>) {}

  /** Stores the encoded click records (each a JSON array), each record id once. */
  async insertPayloads(payloads: string[]): Promise<void> {
    await this.clicks.query(INSERT_ENTRIES_SQL, [`[${payloads.join(',')}]`]);
  }
}

/** Every field of every entry, by its position in the entry's JSON array, into its column. */
const INSERT_ENTRIES_SQL = `
  INSERT INTO clicks (${CLICK_RECORD_FIELDS.map(({ column }) => column).join(', ')})
  SELECT ${CLICK_RECORD_FIELDS.map((spec, i) => columnValueSql(spec, i)).join(', ')}
    FROM jsonb_array_elements($1::jsonb) AS entry
  ON CONFLICT DO NOTHING`;

/** The SQL reading field `index` of an entry, or its stand-in when an older entry lacks it. */
function columnValueSql(spec: (typeof CLICK_RECORD_FIELDS)[number], index: number): string {
  const value = `(entry->>${index})::${spec.sqlType}`;
  return 'whenAbsent' in spec ? `COALESCE(${value}, ${spec.whenAbsent})` : value;
}

/** PostgreSQL's error code, when the error is one of its errors. */
function postgresCodeOf(error: unknown): string | undefined {
  const driverError = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  const code = (driverError as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * An entry PostgreSQL cannot store: bad JSON or values (class 22), a missing or out-of-range
 * field (23502, 23514). Not a missing month partition, which the partition job will create.
 */
export function isBadEntryError(error: unknown): boolean {
  const code = postgresCodeOf(error);
  if (code === undefined) return false;
  if (code.startsWith('22') || code === '23502') return true;
  return code === '23514' && !String(error).includes('no partition');
}
