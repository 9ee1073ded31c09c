import type { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, Logger as PinoLogger, LevelWithSilent } from 'pino';
import { LOG_REDACTED_PATHS, REDACTED, scrubLogText } from './log-redaction';

/**
 * The process's logger: pino, one JSON object a line (level, time, msg and fields) when
 * stdout is not a terminal (production, containers, CI), a human-readable line when it is.
 * Keys, credentials, URL queries and client addresses are taken out (log-redaction.ts).
 */
export function createAppLogger(
  level: LevelWithSilent,
  destination: DestinationStream = process.stdout.isTTY
    ? humanLines(process.stdout)
    : pino.destination({ dest: 1, sync: true }),
): PinoLogger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: LOG_REDACTED_PATHS, censor: REDACTED },
      serializers: { err: serializeError },
      hooks: {
        // Free text is scrubbed wherever it is passed: the message and string arguments.
        logMethod(args, method) {
          const scrubbed = args.map((arg: unknown) =>
            typeof arg === 'string' ? scrubLogText(arg) : arg,
          ) as Parameters<typeof method>;
          method.apply(this, scrubbed);
        },
      },
    },
    destination,
  );
}

function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: scrubLogText(String(error)) };
  return {
    type: error.name,
    message: scrubLogText(error.message),
    stack: error.stack === undefined ? undefined : scrubLogText(error.stack),
  };
}

/** Nest's LoggerService on pino: every `new Logger(context)` of the app writes through it. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: PinoLogger) {}

  log(message: unknown, ...optional: unknown[]): void {
    this.write('info', message, optional);
  }
  error(message: unknown, ...optional: unknown[]): void {
    this.write('error', message, optional);
  }
  warn(message: unknown, ...optional: unknown[]): void {
    this.write('warn', message, optional);
  }
  debug(message: unknown, ...optional: unknown[]): void {
    this.write('debug', message, optional);
  }
  verbose(message: unknown, ...optional: unknown[]): void {
    this.write('trace', message, optional);
  }
  fatal(message: unknown, ...optional: unknown[]): void {
    this.write('fatal', message, optional);
  }

  /**
   * Nest passes `(message, ...params, context?)`; an Error or a stack among them is `err`, a
   * plain object's keys become fields (structured values such as a listen address, which the
   * message's free-text scrubbing would take for a client's), redacted by name like any field.
   */
  private write(
    level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace',
    message: unknown,
    optional: unknown[],
  ): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const params = [...optional];
    const context =
      params.length > 0 && typeof params[params.length - 1] === 'string'
        ? (params.pop() as string)
        : undefined;
    const fields: Record<string, unknown> = {};
    if (context !== undefined) fields.context = context;
    for (const param of params) {
      if (param instanceof Error) fields.err = param;
      else if (typeof param === 'string' && param.includes('\n    at ')) fields.stack = param;
      else if (isPlainObject(param)) Object.assign(fields, param);
    }
    if (message instanceof Error) {
      fields.err = message;
      this.logger[level](fields, message.message);
    } else if (typeof message === 'string') {
      this.logger[level](fields, message);
    } else {
      this.logger[level]({ ...fields, data: message });
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
  );
}

/** On a terminal: `12:00:00.000 INFO  [Context] message key=value …` instead of JSON. */
export function humanLines(out: NodeJS.WritableStream): DestinationStream {
  return {
    write(line: string): void {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const { time, level, msg, context, pid: _pid, err, ...rest } = record;
      const extras = Object.entries(rest)
        .map(
          ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
        )
        .join(' ');
      const stack = (err as { stack?: string } | undefined)?.stack;
      out.write(
        [
          typeof time === 'string' ? time.slice(11, 23) : '',
          String(level).toUpperCase().padEnd(5),
          typeof context === 'string' ? `[${context}]` : '',
          typeof msg === 'string' ? msg : '',
          extras,
        ]
          .filter((part) => part !== '')
          .join(' ') +
          (stack === undefined ? '' : `\n${stack}`) +
          '\n',
      );
    },
  };
}
