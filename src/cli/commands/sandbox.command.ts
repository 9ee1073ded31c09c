import type { Command } from 'commander';
import type { CliContext } from './cli-context';

export function registerSandboxCommands(program: Command, { withAdmin }: CliContext): void {
  program
    .command('sandbox')
    .description('The test-key sandbox')
    .command('reset')
    .description("Remove a creator's test links and test clicks (live records are never touched)")
    .requiredOption('--creator <creatorId>', 'whose sandbox')
    .action(async (options: { creator: string }) =>
      withAdmin((admin) => admin.resetSandbox(options.creator), { sandbox: true }),
    );
}
