import type { Command } from 'commander';
import type { CliContext } from './cli-context';

export function registerNetworkAccountsCommands(program: Command, { withAdmin }: CliContext): void {
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
}
