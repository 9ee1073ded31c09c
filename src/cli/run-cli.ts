import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INestApplicationContext, Logger, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, CommanderError } from 'commander';
import { KnowledgeBaseError } from '../../seeds/merchants.seed';
import { AppError } from '../common/errors/app-error';
import { projectRoot } from '../common/project-root';
import { AppConfig, ConfigError, loadConfig } from '../config/env';
import { DatabaseUnreachableError } from '../database/database-reachability';
import { DatabaseNotFoundError, openDatabase } from '../database/open-database';
import { AdminService, ClickRetentionIncompleteError } from './admin.service';
import { CliLogFloor, createCliLogger } from './cli-logger';
import { CliModule, CliModuleOptions } from './cli.module';
import { registerAnalyticsCommands } from './commands/analytics.command';
import { registerClicksCommands } from './commands/clicks.command';
import type { CliContext, CliResult } from './commands/cli-context';
import { registerCreatorsCommands } from './commands/creators.command';
import { registerDbCommands } from './commands/db.command';
import { registerFxCommands } from './commands/fx.command';
import { registerKbCommands } from './commands/kb.command';
import { registerKeysCommands } from './commands/keys.command';
import { registerNetworkAccountsCommands } from './commands/network-accounts.command';
import { registerMerchantsCommands } from './commands/merchants.command';
import { registerSandboxCommands } from './commands/sandbox.command';
import { registerConversionsCommands } from './commands/conversions.command';
import { registerWebhooksCommands } from './commands/webhooks.command';
import { EncryptionKeyRotationIncompleteError } from '../webhooks/webhook-secret-rotation.service';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/**
 * `npx linkpilot …`: the operator interface of docs/design.md section 7. Each command prints
 * one JSON object with --json (the result, or `{error: {code, message, details?}}`), else
 * readable lines. Returns the exit code: 0 done, 1 refused or failed, 2 bad arguments.
 */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
): Promise<number> {
  const isJson = argv.includes('--json');
  const print = (result: CliResult): void =>
    io.out(isJson ? JSON.stringify(result) + '\n' : formatHuman(result));
  let config: AppConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return fail(io, isJson, 'CONFIG_ERROR', error.message, 1);
    throw error;
  }
  const progress = (line: string): void => io.err(`${line}\n`);
  const logger = (floor: CliLogFloor): LoggerService =>
    createCliLogger(config.http.logLevel, floor, (text) => io.err(text));
  // Also the lines of the commands that open no Nest context (TypeORM's in `db migrate`).
  const adminLogger = logger('error');
  Logger.overrideLogger(adminLogger);
  const withAdmin = async (
    work: (admin: AdminService) => Promise<CliResult>,
    options: CliModuleOptions = {},
  ): Promise<void> => {
    print(await withAdminService(config, work, options, progress, adminLogger));
  };
  const program = buildProgram({ config, print, progress, logger, withAdmin }, io);
  if (argv.every((arg) => arg === '--json')) {
    // No command: the help, as `--help` prints it (commander would report it as an error).
    io.out(program.helpInformation());
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0; // --help, --version
      return fail(io, isJson, 'INVALID_ARGUMENTS', error.message.replace(/^error: /, ''), 2);
    }
    if (error instanceof AppError) {
      return fail(io, isJson, error.code, error.message, 1, error.details);
    }
    if (error instanceof KnowledgeBaseError) {
      return fail(io, isJson, 'KNOWLEDGE_BASE_INVALID', error.message, 1);
    }
    if (error instanceof ConfigError) return fail(io, isJson, 'CONFIG_ERROR', error.message, 1);
    if (error instanceof DatabaseNotFoundError || error instanceof DatabaseUnreachableError) {
      return fail(io, isJson, error.code, error.message, 1);
    }
    if (error instanceof ClickRetentionIncompleteError) {
      return fail(io, isJson, error.code, error.message, 1, error.details);
    }
    if (error instanceof EncryptionKeyRotationIncompleteError) {
      return fail(io, isJson, 'ROTATION_INCOMPLETE', error.message, 1, error.details);
    }
    const message = error instanceof Error ? error.message : String(error);
    return fail(io, isJson, 'INTERNAL_ERROR', message, 1);
  }
}

function buildProgram(context: CliContext, io: CliIo): Command {
  // Set before adding subcommands: commander copies these settings into each one it creates.
  const program = new Command('linkpilot')
    .description(
      'Linkpilot admin CLI: creators, API keys, network accounts, FX rates, analytics, webhook secret keys, database.',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--json', 'print one JSON object')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      // Our catch reports argument errors (as JSON with --json); commander's copy is dropped.
      writeErr: () => undefined,
    });
  // Registration order is the order `--help` lists the groups in.
  registerDbCommands(program, context);
  registerKbCommands(program, context);
  registerCreatorsCommands(program, context);
  registerKeysCommands(program, context);
  registerNetworkAccountsCommands(program, context);
  registerClicksCommands(program, context);
  registerAnalyticsCommands(program, context);
  registerConversionsCommands(program, context);
  registerFxCommands(program, context);
  registerSandboxCommands(program, context);
  registerMerchantsCommands(program, context);
  registerWebhooksCommands(program, context);
  return program;
}

/** package.json's version, found from the project root (the CLI may run from any folder). */
function packageVersion(): string {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8'),
  ) as { version: string };
  return manifest.version;
}

/** Boots the database-backed services for one command and closes them afterwards. */
async function withAdminService(
  config: AppConfig,
  work: (admin: AdminService) => Promise<CliResult>,
  options: CliModuleOptions,
  progress: (line: string) => void,
  logger: LoggerService,
): Promise<CliResult> {
  const database = await openDatabase(config.database, {
    createEmbedded: false,
    onProgress: progress,
  });
  let context: INestApplicationContext | undefined;
  try {
    context = await NestFactory.createApplicationContext(
      CliModule.forRoot({ ...config, database: database.config }, options),
      { logger },
    );
    return await work(context.get(AdminService));
  } finally {
    await context?.close();
    await database.handle.close();
  }
}

function fail(
  io: CliIo,
  isJson: boolean,
  code: string,
  message: string,
  exitCode: number,
  details?: Record<string, string[]>,
): number {
  if (isJson) {
    io.out(JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } }) + '\n');
  } else {
    const detailLines = Object.entries(details ?? {}).map(
      ([field, messages]) => `  ${field}: ${messages.join('; ')}\n`,
    );
    io.err(`linkpilot: ${message}\n${detailLines.join('')}`);
  }
  return exitCode;
}

/** Readable form: one `path: value` line per leaf. */
function formatHuman(result: CliResult, prefix = ''): string {
  return Object.entries(result)
    .map(([key, value]) => {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (value !== null && typeof value === 'object') {
        return formatHuman(value as CliResult, path);
      }
      return `${path}: ${String(value)}\n`;
    })
    .join('');
}
