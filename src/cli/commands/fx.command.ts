import type { Command } from 'commander';
import type { CliContext } from './cli-context';

export function registerFxCommands(program: Command, { withAdmin }: CliContext): void {
  const fx = program.command('fx').description('FX rates');
  fx.command('refresh')
    .description(
      'Fetch rates now from the primary source, else the fallback (as the daily job does)',
    )
    .action(async () => withAdmin((admin) => admin.refreshFx()));
}
