import { Logger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';

/**
 * TypeORM's lines through the application's logger (pino in the server: one JSON line, the
 * same redaction as every other line) instead of TypeORM's console writer, which printed
 * `query failed: <SQL> -- PARAMETERS: [...]` as plain text with the values bound to it.
 * Parameter values (keys' hashes, emails, visitors' data) are never logged, only their count;
 * the SQL is the code's own text. Successful queries and schema steps are not logged: callers
 * report what they ran (migrations applied, seeds written).
 */
export class TypeOrmNestLogger implements TypeOrmLogger {
  private readonly logger = new Logger('TypeORM');

  logQuery(): void {}

  logQueryError(error: string | Error, query: string, parameters?: unknown[]): void {
    const reason = error instanceof Error ? error.message : error;
    this.logger.error(`Query failed: ${reason} -- ${describeQuery(query, parameters)}`);
  }

  logQuerySlow(timeMs: number, query: string, parameters?: unknown[]): void {
    this.logger.warn(`Slow query (${timeMs} ms): ${describeQuery(query, parameters)}`);
  }

  logSchemaBuild(): void {}

  logMigration(): void {}

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
  }
}

/** One line of SQL, and how many values were bound to it (never the values). */
function describeQuery(query: string, parameters: unknown[] | undefined): string {
  const sql = query.replace(/\s+/g, ' ').trim();
  const count = parameters?.length ?? 0;
  return count === 0 ? sql : `${sql} (${count} parameters, not logged)`;
}
