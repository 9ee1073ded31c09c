import type { LoggerService } from '@nestjs/common';
import type { AppConfig } from '../../config/env';
import type { AdminService } from '../admin.service';
import type { CliLogFloor } from '../cli-logger';
import type { CliModuleOptions } from '../cli.module';

/** What one command prints: one JSON object with --json, else one `path: value` line per leaf. */
export type CliResult = Record<string, unknown>;

/** What every command group is registered with. */
export interface CliContext {
  config: AppConfig;
  print: (result: CliResult) => void;
  /** A line of progress for long commands, on stderr (stdout keeps the one result). */
  progress: (line: string) => void;
  /** Nest's and TypeORM's lines for a command's own Nest context: JSON on stderr (cli-logger.ts). */
  logger: (floor: CliLogFloor) => LoggerService;
  /**
   * Boots the database-backed services for one command, prints its result, closes them;
   * `options` adds what only some commands need (the sandbox and its key-value store).
   */
  withAdmin: (
    work: (admin: AdminService) => Promise<CliResult>,
    options?: CliModuleOptions,
  ) => Promise<void>;
}
