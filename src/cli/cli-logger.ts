import type { LoggerService } from '@nestjs/common';
import pino from 'pino';
import { createAppLogger, NestPinoLogger } from '../common/logging/app-logger';
import type { HttpConfig } from '../config/env';

type LogLevel = HttpConfig['logLevel'];

/** The most a command's own logs may say: errors, or warnings too for the click worker. */
export type CliLogFloor = 'error' | 'warn';

/** pino's own order of its levels (trace 10 … fatal 60); silent says nothing at all. */
const rankOf = (level: LogLevel): number =>
  level === 'silent' ? Infinity : pino.levels.values[level];

/**
 * Nest's and TypeORM's lines in the CLI (a failed query's among them) through the server's
 * logger and redaction, as JSON lines on stderr: stdout carries the command's one result, and
 * Nest's console logger wrote them as plain text. At LOG_LEVEL, but never chattier than
 * `floor`: Nest's start-up lines (each module initialised) tell an operator nothing.
 */
export function createCliLogger(
  level: LogLevel,
  floor: CliLogFloor,
  writeErr: (text: string) => void,
): LoggerService {
  const quieter = rankOf(level) >= rankOf(floor) ? level : floor;
  return new NestPinoLogger(createAppLogger(quieter, { write: writeErr }));
}
