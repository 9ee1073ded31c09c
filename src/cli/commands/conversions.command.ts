import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { KEY_ENVIRONMENTS, KeyEnvironment } from '../../common/access/auth-context';
import type { CliContext } from './cli-context';

const BAR_WIDTH = 30;

/** `[#######-------] 700/1000 rows`: the import's progress line. */
function progressBar(done: number, rows: number): string {
  const filled = rows === 0 ? BAR_WIDTH : Math.round((done / rows) * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${rows} rows`;
}

const environmentOf = (value: string): KeyEnvironment => {
  if (!(KEY_ENVIRONMENTS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${KEY_ENVIRONMENTS.join(', ')}`);
  }
  return value as KeyEnvironment;
};

export function registerConversionsCommands(
  program: Command,
  { withAdmin, progress }: CliContext,
): void {
  program
    .command('conversions')
    .description("The networks' conversions")
    .command('import')
    .description(
      "Record a network's report export (CSV): idempotent per network, order id and status; a progress bar on stderr and every refused row in the report",
    )
    .requiredOption('--creator <creatorId>', 'whose conversions')
    .requiredOption('--network <networkId>', 'the network the report is of')
    .option('--env <environment>', 'live or test', environmentOf, 'live' as KeyEnvironment)
    .argument('<file>', 'the CSV file')
    .action(
      async (file: string, options: { creator: string; network: string; env: KeyEnvironment }) =>
        withAdmin(
          (admin) =>
            admin.importConversions(
              {
                creatorId: options.creator,
                networkId: options.network,
                environment: options.env,
                file,
              },
              ({ done, rows }) => progress(progressBar(done, rows)),
            ),
          { conversions: true },
        ),
    );
}
