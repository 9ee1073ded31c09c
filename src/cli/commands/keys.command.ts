import type { Command } from 'commander';
import { collectIp, parseEnvironment } from '../cli-options';
import type { CliContext } from './cli-context';

export function registerKeysCommands(program: Command, { withAdmin }: CliContext): void {
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
}
