import { Injectable } from '@nestjs/common';
import { WebhookEndpointsRepository, StoredSecrets } from './webhook-endpoints.repository';
import { WebhookSecretCipher } from './webhook-secret-cipher';
import { DEVELOPMENT_SECRET_KEY_ID, UnreadableSecretError } from './webhook-secret-keyring';

/** Endpoints read and rewritten per statement. */
const ROWS_PER_READ = 200;

/** What `linkpilot webhooks rotate-encryption-key` did. */
export interface EncryptionKeyRotation {
  /** The id of the key (WEBHOOK_SECRET_KEY) every secret is now stored under. */
  keyId: string;
  /** Endpoints (deleted ones included) that had a secret under another key. */
  endpoints: number;
  /** Secrets (current and previous ones) rewritten under the key. */
  secretsReencrypted: number;
  /** Of those, secrets that were under the built-in development key. */
  fromDevelopmentKey: number;
  /** Endpoints with a secret still under another key afterwards: 0 when the old keys may go. */
  remaining: number;
}

/** Some secrets stay under another key: the old keys must stay configured. */
export class EncryptionKeyRotationIncompleteError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, string[]>,
  ) {
    super(message);
    this.name = 'EncryptionKeyRotationIncompleteError';
  }
}

/**
 * Re-encrypts every stored signing secret under the current key (docs/webhooks.md "Webhooks",
 * "Encryption keys"), whatever key it was read with: a previous key, the built-in development
 * key, or the current one in the format from before key ids. Safe while servers run: a row
 * is rewritten only if no API call changed it since it was read, and a second run does
 * nothing more than the first.
 */
@Injectable()
export class WebhookSecretRotationService {
  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly cipher: WebhookSecretCipher,
  ) {}

  /** Endpoints with a secret not under the current key (the boot-time reminder). */
  countNotUnderCurrentKey(): Promise<number> {
    return this.endpoints.countSecretsNotUnder(this.cipher.currentPrefix);
  }

  async reencryptAll(): Promise<EncryptionKeyRotation> {
    const prefix = this.cipher.currentPrefix;
    const report: EncryptionKeyRotation = {
      keyId: this.cipher.keyring.current.id,
      endpoints: 0,
      secretsReencrypted: 0,
      fromDevelopmentKey: 0,
      remaining: 0,
    };
    const unreadable: string[] = [];
    let afterId = '';
    for (;;) {
      const rows = await this.endpoints.findSecretsNotUnder(prefix, afterId, ROWS_PER_READ);
      if (rows.length === 0) break;
      afterId = rows[rows.length - 1].id;
      for (const row of rows) {
        report.endpoints += 1;
        try {
          const { next, reencrypted, fromDevelopmentKey } = this.reencrypt(row, prefix);
          if (await this.endpoints.replaceSecrets(row, next)) {
            report.secretsReencrypted += reencrypted;
            report.fromDevelopmentKey += fromDevelopmentKey;
          }
        } catch (error) {
          if (!(error instanceof UnreadableSecretError)) throw error;
          unreadable.push(row.id);
        }
      }
    }
    report.remaining = await this.endpoints.countSecretsNotUnder(prefix);
    if (report.remaining > 0) throw incomplete(report, unreadable);
    return report;
  }

  private reencrypt(
    row: StoredSecrets,
    prefix: string,
  ): { next: Omit<StoredSecrets, 'id'>; reencrypted: number; fromDevelopmentKey: number } {
    let reencrypted = 0;
    let fromDevelopmentKey = 0;
    const rewrite = (stored: string): string => {
      if (stored.startsWith(prefix)) return stored;
      const { secret, keyId } = this.cipher.decrypt(stored);
      reencrypted += 1;
      if (keyId === DEVELOPMENT_SECRET_KEY_ID) fromDevelopmentKey += 1;
      return this.cipher.encrypt(secret);
    };
    const next = {
      secretCiphertext: rewrite(row.secretCiphertext),
      previousSecretCiphertext:
        row.previousSecretCiphertext === null ? null : rewrite(row.previousSecretCiphertext),
    };
    return { next, reencrypted, fromDevelopmentKey };
  }
}

function incomplete(
  report: EncryptionKeyRotation,
  unreadable: string[],
): EncryptionKeyRotationIncompleteError {
  const done = `${report.secretsReencrypted} secrets re-encrypted under key ${report.keyId}, but ${report.remaining} endpoints still have one under another key`;
  const cause =
    unreadable.length > 0
      ? `${unreadable.length} of them open with none of the configured keys: add the key they were stored under to WEBHOOK_SECRET_KEY_PREVIOUS and run again`
      : 'they were written meanwhile by a server without this WEBHOOK_SECRET_KEY: give every server the new key and run again';
  return new EncryptionKeyRotationIncompleteError(
    `${done}; ${cause}. Keep the previous keys configured until a run completes.`,
    unreadable.length > 0 ? { unreadableEndpointIds: unreadable } : {},
  );
}
