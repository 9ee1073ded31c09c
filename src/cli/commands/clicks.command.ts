import type { Command } from 'commander';
import { runClickWorker } from '../click-worker';
import type { CliContext } from './cli-context';

export function registerClicksCommands(
  program: Command,
  { config, print, progress, logger }: CliContext,
): void {
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
        print(
          await runClickWorker(config, {
            once: options.once === true,
            stop: stop.received,
            onProgress: progress,
            logger: logger('warn'),
          }),
        );
      } finally {
        stop.dispose();
      }
    });
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
