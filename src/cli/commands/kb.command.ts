import type { Command } from 'commander';
import { checkKnowledgeBaseOrThrow, KNOWLEDGE_BASE_DIR } from '../../../seeds/merchants.seed';
import type { CliContext } from './cli-context';

export function registerKbCommands(program: Command, { print }: CliContext): void {
  program
    .command('kb')
    .description('Merchant knowledge base')
    .command('check')
    .description(
      'Validate every profile in seeds/merchants (schema, bounds, cross-file rules) and, where test/fixtures/canonicalisation exists, that each corpus group canonicalises to one URL',
    )
    .option('--dir <path>', 'profiles directory', KNOWLEDGE_BASE_DIR)
    .action((options: { dir: string }) => {
      const { profiles } = checkKnowledgeBaseOrThrow(options.dir);
      print({ valid: true, merchants: profiles.length, directory: options.dir });
    });
}
