import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InjectConfig } from '../config/config.module';
import { DatabaseConfig } from '../config/env';

/**
 * The advisory locks of the serving database, for services that must run alone across
 * servers (withAdvisoryLock); they hold no data source of their own.
 */
@Injectable()
export class AdvisoryLocks {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig('database') private readonly database: DatabaseConfig,
  ) {}

  /** `work` under the lock `name`, or `{ ran: false }` when another session holds it. */
  run<T>(name: string, work: () => Promise<T>): Promise<{ ran: true; result: T } | { ran: false }> {
    return withAdvisoryLock(this.dataSource, this.database.poolSize, name, work);
  }
}

/**
 * Runs `work` while this session holds the PostgreSQL session-level advisory lock named
 * `name`, so that of several servers (or a server and the CLI) only one runs it at a time;
 * answers `{ ran: false }` at once when another session holds the lock.
 *
 * A session lock belongs to the connection that took it, so it is taken and released on one
 * connection held aside for the purpose, while `work` uses the pool as usual. With a pool of
 * one connection (always so on PGlite) none can be held aside without starving `work`, and
 * none need be: every statement goes through that one connection, the lock's included. PGlite
 * runs one session for all its clients, in which the lock excludes nobody: its single process
 * is the only server there.
 */
async function withAdvisoryLock<T>(
  dataSource: DataSource,
  poolSize: number,
  name: string,
  work: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  const holder = poolSize > 1 ? dataSource.createQueryRunner() : null;
  const query = (sql: string): Promise<{ done: boolean }[]> =>
    holder === null ? dataSource.query(sql, [name]) : holder.query(sql, [name]);
  try {
    const [taken] = await query(`SELECT pg_try_advisory_lock(hashtext($1)) AS done`);
    if (!taken.done) return { ran: false };
    try {
      return { ran: true, result: await work() };
    } finally {
      await query(`SELECT pg_advisory_unlock(hashtext($1)) AS done`);
    }
  } finally {
    await holder?.release();
  }
}
