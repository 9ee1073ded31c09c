import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, CommanderError } from 'commander';
import {
  checkKnowledgeBaseOrThrow,
  KNOWLEDGE_BASE_DIR,
  KnowledgeBaseError,
} from '../../seeds/merchants.seed';
import { AppError } from '../common/errors/app-error';
import { AppConfig, ConfigError, loadConfig } from '../config/env';
import { migrate, seed, withDataSource } from '../database/database-tasks';
import { openDatabase } from '../database/open-database';
import { AdminService } from './admin.service';
import { runClickWorker } from './click-worker';
import { collectIp, parseClickCount, parseEmail, parseEnvironment, parsePlan } from './cli-options';
import { CliModule } from './cli.module';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

type Result = Record<string, unknown>;

/**
 * `npx linkpilot …`: the operator interface of DESIGN section 7. Each command prints one JSON
 * object with --json (the result, or `{error: {code, message, details?}}`), else readable
 * lines. Returns the exit code: 0 done, 1 refused or failed, 2 bad arguments.
 */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
): Promise<number> {
  const isJson = argv.includes('--json');
  const print = (result: Result): void =>
    io.out(isJson ? JSON.stringify(result) + '\n' : formatHuman(result));
  let config: AppConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return fail(io, isJson, 'CONFIG_ERROR', error.message, 1);
    throw error;
  }
  const withAdmin = async (work: (admin: AdminService) => Promise<Result>): Promise<void> => {
    print(await withAdminService(config, work));
  };
  const program = buildProgram(config, withAdmin, print, io);
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
    const message = error instanceof Error ? error.message : String(error);
    return fail(io, isJson, 'INTERNAL_ERROR', message, 1);
  }
}

function buildProgram(
  config: AppConfig,
  withAdmin: (work: (admin: AdminService) => Promise<Result>) => Promise<void>,
  print: (result: Result) => void,
  io: CliIo,
): Command {
  // Set before adding subcommands: commander copies these settings into each one it creates.
  const program = new Command('linkpilot')
    .description('Linkpilot admin CLI: creators, API keys, network accounts, FX rates, database.')
    .option('--json', 'print one JSON object')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      // Our catch reports argument errors (as JSON with --json); commander's copy is dropped.
      writeErr: () => undefined,
    });

  const db = program.command('db').description('Database tasks');
  db.command('migrate')
    .description('Apply pending migrations (idempotent)')
    .action(async () => print({ applied: await withDataSource(config.database, migrate) }));
  db.command('seed')
    .description('Write the reference data (idempotent)')
    .action(async () => print({ seeded: await withDataSource(config.database, seed) }));

  program
    .command('kb')
    .description('Merchant knowledge base')
    .command('check')
    .description('Validate every profile in seeds/merchants (schema, bounds, cross-file rules)')
    .option('--dir <path>', 'profiles directory', KNOWLEDGE_BASE_DIR)
    .action((options: { dir: string }) => {
      const { profiles } = checkKnowledgeBaseOrThrow(options.dir);
      print({ valid: true, merchants: profiles.length, directory: options.dir });
    });

  const creators = program.command('creators').description('Creator accounts');
  creators
    .command('create')
    .description('Create a creator (with demo accounts on all 12 networks unless told otherwise)')
    .requiredOption('--plan <plan>', 'free, creator, pro, publisher or enterprise', parsePlan)
    .option('--included-clicks <n>', "override the plan's monthly included clicks", parseClickCount)
    .option('--email <email>', 'login email (default: generated)', parseEmail)
    .option('--name <name>', 'display name')
    .option('--with-key', 'also issue an API key and print it once')
    .option('--env <env>', 'environment of that key: live or test', parseEnvironment, 'live')
    .option('--allow-ip <cidr>', 'IP allowlist entry of that key (repeatable)', collectIp, [])
    .option('--no-network-accounts', 'do not create demo network accounts')
    .action(async (options: CreateCreatorOptions) =>
      withAdmin((admin) =>
        admin.createCreator({
          planId: options.plan,
          email: options.email,
          displayName: options.name,
          includedClicks: options.includedClicks,
          withKey: options.withKey === true,
          environment: options.env,
          allowIps: options.allowIp,
          withNetworkAccounts: options.networkAccounts,
        }),
      ),
    );
  creators
    .command('update <creatorId>')
    .description("Change a creator's plan or included clicks")
    .option('--plan <plan>', 'new plan', parsePlan)
    .option('--included-clicks <n>', 'new included clicks override', parseClickCount)
    .option('--plan-included-clicks', "drop the override and use the plan's included clicks")
    .action(async (creatorId: string, options: UpdateCreatorOptions) => {
      if (
        options.plan === undefined &&
        options.includedClicks === undefined &&
        options.planIncludedClicks !== true
      ) {
        throw new CommanderError(
          2,
          'linkpilot.nothingToUpdate',
          'Nothing to update: give --plan, --included-clicks or --plan-included-clicks.',
        );
      }
      await withAdmin((admin) =>
        admin.updateCreator(creatorId, {
          planId: options.plan,
          includedClicksOverride:
            options.planIncludedClicks === true ? null : options.includedClicks,
        }),
      );
    });

  const keys = program.command('keys').description('API keys');
  keys
    .command('create')
    .description('Issue an API key (printed once; only its hash is stored)')
    .requiredOption('--creator <creatorId>', 'owner of the key')
    .option('--env <env>', 'live or test (test keys: Enterprise only)', parseEnvironment, 'live')
    .option('--allow-ip <cidr>', 'IP allowlist entry (repeatable; Enterprise only)', collectIp, [])
    .action(async (options: { creator: string; env: 'live' | 'test'; allowIp: string[] }) =>
      withAdmin((admin) => admin.createKey(options.creator, options.env, options.allowIp)),
    );
  keys
    .command('revoke <keyId>')
    .description('Revoke an API key; it is refused from the next request on')
    .action(async (keyId: string) => withAdmin((admin) => admin.revokeKey(keyId)));

  const accounts = program
    .command('network-accounts')
    .description("A creator's affiliate accounts per network");
  accounts
    .command('set')
    .description('Create or replace the account (affiliate id) on one network')
    .requiredOption('--creator <creatorId>', 'creator')
    .requiredOption('--network <networkId>', 'network id, e.g. awin')
    .requiredOption('--affiliate-id <id>', 'the id the tracking parameters carry')
    .action(async (options: { creator: string; network: string; affiliateId: string }) =>
      withAdmin((admin) =>
        admin.setNetworkAccount(options.creator, options.network, options.affiliateId),
      ),
    );
  accounts
    .command('remove')
    .description('Remove the account on one network')
    .requiredOption('--creator <creatorId>', 'creator')
    .requiredOption('--network <networkId>', 'network id')
    .action(async (options: { creator: string; network: string }) =>
      withAdmin((admin) => admin.removeNetworkAccount(options.creator, options.network)),
    );
  accounts
    .command('list')
    .description("List a creator's active network accounts")
    .requiredOption('--creator <creatorId>', 'creator')
    .action(async (options: { creator: string }) =>
      withAdmin((admin) => admin.listNetworkAccounts(options.creator)),
    );

  program
    .command('clicks')
    .description('Click records')
    .command('consume')
    .description(
      'Move clicks from the Redis streams to PostgreSQL until SIGTERM or SIGINT (a worker for servers run with CLICK_CONSUMER_ENABLED=false)',
    )
    .option('--once', 'stop when the streams are empty')
    .action(async (options: { once?: boolean }) => {
      const stop = stopSignal();
      try {
        print(await runClickWorker(config, { once: options.once === true, stop: stop.received }));
      } finally {
        stop.dispose();
      }
    });

  const fx = program.command('fx').description('FX rates');
  fx.command('refresh')
    .description(
      'Fetch rates now from the primary source, else the fallback (as the daily job does)',
    )
    .action(async () => withAdmin((admin) => admin.refreshFx()));
  return program;
}

interface CreateCreatorOptions {
  plan: ReturnType<typeof parsePlan>;
  includedClicks?: number;
  email?: string;
  name?: string;
  withKey?: boolean;
  env: 'live' | 'test';
  allowIp: string[];
  networkAccounts: boolean;
}

interface UpdateCreatorOptions {
  plan?: ReturnType<typeof parsePlan>;
  includedClicks?: number;
  planIncludedClicks?: boolean;
}

/** `received` resolves on the first SIGTERM or SIGINT; dispose removes the listeners. */
function stopSignal(): { received: Promise<void>; dispose: () => void } {
  let onSignal = (): void => undefined;
  const received = new Promise<void>((resolve) => (onSignal = () => resolve()));
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return {
    received,
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}

/** Boots the database-backed services for one command and closes them afterwards. */
async function withAdminService(
  config: AppConfig,
  work: (admin: AdminService) => Promise<Result>,
): Promise<Result> {
  const database = await openDatabase(config.database);
  let context: INestApplicationContext | undefined;
  try {
    context = await NestFactory.createApplicationContext(
      CliModule.forRoot({ ...config, database: database.config }),
      { logger: ['fatal', 'error'] },
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
function formatHuman(result: Result, prefix = ''): string {
  return Object.entries(result)
    .map(([key, value]) => {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (value !== null && typeof value === 'object') {
        return formatHuman(value as Result, path);
      }
      return `${path}: ${String(value)}\n`;
    })
    .join('');
}
