import type { Command } from 'commander';
import { ConfigError } from '../../config/env';
import type { CliContext } from './cli-context';

export function registerWebhooksCommands(
  program: Command,
  { config, withAdmin }: CliContext,
): void {
  program
    .command('webhooks')
    .description('Webhook endpoints: the encryption of their stored signing secrets')
    .command('rotate-encryption-key')
    .description(
      'Re-encrypt every stored signing secret under WEBHOOK_SECRET_KEY, reading the old ones ' +
        'with WEBHOOK_SECRET_KEY_PREVIOUS (or the built-in development key)',
    )
    .action(async () => {
      if (config.webhooks.secretKey === null) {
        throw new ConfigError([
          'WEBHOOK_SECRET_KEY must be set to the new key (the one to re-encrypt under; ' +
            '`openssl rand -hex 32` makes one), and WEBHOOK_SECRET_KEY_PREVIOUS to the old ones',
        ]);
      }
      await withAdmin((admin) => admin.rotateWebhookEncryptionKey(), { webhookSecrets: true });
    });
}
