import type { Command } from 'commander';
import { checkKnowledgeBaseOrThrow, KNOWLEDGE_BASE_DIR } from '../../../seeds/merchants.seed';
import type { CliContext } from './cli-context';

export function registerKbCommands(program: Command, { print, withAdmin }: CliContext): void {
  const kb = program.command('kb').description('Merchant knowledge base');
  kb.command('check')
    .description(
      'Validate every profile in seeds/merchants (schema, bounds, cross-file rules) and, where test/fixtures/canonicalisation exists, that each corpus group canonicalises to one URL',
    )
    .option('--dir <path>', 'profiles directory', KNOWLEDGE_BASE_DIR)
    .action((options: { dir: string }) => {
      const { profiles } = checkKnowledgeBaseOrThrow(options.dir);
      print({ valid: true, merchants: profiles.length, directory: options.dir });
    });
  kb.command('apply')
    .description(
      'Store the bundled profiles of seeds/merchants over the stored ones, operator changes (merchants set-epc) included; print the differences and send commission_rate.changed for each EPC hint that changed',
    )
    .argument('[merchantIds...]', 'only these merchants (default: all)')
    .option('--dry-run', 'print the differences, change nothing')
    .action(async (merchantIds: string[], options: { dryRun?: boolean }) => {
      const { profiles } = checkKnowledgeBaseOrThrow();
      await withAdmin(
        (admin) =>
          admin.applyKnowledgeBase(profiles, { merchantIds, dryRun: options.dryRun === true }),
        { links: true },
      );
    });
}
