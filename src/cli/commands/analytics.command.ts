import { Command, CommanderError } from 'commander';
import type { RollupRebuildProgress } from '../../analytics/click-rollups.service';
import { parseDay } from '../cli-options';
import type { CliContext } from './cli-context';

interface RebuildOptions {
  creator?: string;
  from?: string;
  to?: string;
}

export function registerAnalyticsCommands(
  program: Command,
  { withAdmin, progress }: CliContext,
): void {
  const analytics = program.command('analytics').description('Click analytics');
  analytics
    .command('rebuild')
    .description(
      'Recompute the click rollups from the stored clicks, a creator-hour per transaction (safe while the service runs; what is already right is left alone)',
    )
    .option('--creator <creatorId>', 'only this creator (default: every creator with clicks)')
    .option(
      '--from <day>',
      "first UTC day, YYYY-MM-DD (default: the creator's oldest click)",
      parseDay,
    )
    .option('--to <day>', 'last UTC day, YYYY-MM-DD (default: the newest)', parseDay)
    .action(async (options: RebuildOptions) => {
      if (options.from !== undefined && options.to !== undefined && options.from > options.to) {
        throw new CommanderError(
          2,
          'linkpilot.reversedDays',
          `--from (${options.from}) must be on or before --to (${options.to}).`,
        );
      }
      await withAdmin((admin) =>
        admin.rebuildClickRollups(
          { creatorId: options.creator, from: options.from, to: options.to },
          (step) => progress(describeProgress(step)),
        ),
      );
    });
  analytics
    .command('retention')
    .description(
      'Drop the click partitions older than CLICK_RETENTION_MONTHS once their rollups are checked (and rebuilt where they differ), and delete the rollups older than ROLLUP_RETENTION_MONTHS; what a server does daily at 00:45 UTC',
    )
    .option(
      '--dry-run',
      'print what is due (partitions, rollup rows, old clicks of the DEFAULT partition) and change nothing; rollups are not checked',
    )
    .action(async (options: { dryRun?: boolean }) => {
      await withAdmin((admin) =>
        admin.applyClickRetention({ dryRun: options.dryRun === true }, progress),
      );
    });
}

function describeProgress(step: RollupRebuildProgress): string {
  const repaired = step.differingRows === 0 ? 'unchanged' : `${step.differingRows} rows corrected`;
  return (
    `analytics rebuild: creator ${step.creator}/${step.creators} ${step.creatorId}, ` +
    `${step.day} (day ${step.dayNumber}/${step.days}): ${step.rows} rollup rows in ` +
    `${step.batches} batches, ${repaired}`
  );
}
