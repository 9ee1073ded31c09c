import type { Command } from 'commander';
import type { CliContext } from './cli-context';

export function registerMerchantsCommands(program: Command, { withAdmin }: CliContext): void {
  const merchants = program.command('merchants').description('The merchant knowledge base');
  merchants
    .command('set-epc')
    .description(
      "Change one EPC hint (in the region's currency) and send commission_rate.changed to creators with links on the merchant",
    )
    .argument('<merchantId>', 'merchant id, e.g. amazon')
    .requiredOption('--region <region>', 'region of the profile, e.g. US')
    .requiredOption('--network <networkId>', 'network id, e.g. amazon_associates')
    .requiredOption('--epc <epc>', 'EPC per click, a number >= 0')
    .action(async (merchantId: string, options: { region: string; network: string; epc: string }) =>
      withAdmin(
        (admin) =>
          admin.setMerchantEpc(merchantId, options.region, options.network, Number(options.epc)),
        { links: true },
      ),
    );
}
