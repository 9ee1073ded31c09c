import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import { InjectConfig } from '../config/config.module';
import { WebhooksConfig } from '../config/env';
import {
  decryptSecret,
  DecryptedSecret,
  DEVELOPMENT_SECRET_KEY_ID,
  encryptSecret,
  storedPrefixOf,
  WebhookSecretKeyring,
  webhookKeyringOf,
} from './webhook-secret-keyring';

/** A secret still read under the built-in key is reported at most this often. */
const DEVELOPMENT_KEY_WARNING_INTERVAL_MS = 3_600_000;

/**
 * The stored signing secrets' encryption in this process (docs/webhooks.md "Webhooks", "Encryption
 * keys"). Built from WEBHOOK_SECRET_KEY and WEBHOOK_SECRET_KEY_PREVIOUS; createApp and the
 * rotation command check the configuration before Nest builds it.
 */
@Injectable()
export class WebhookSecretCipher {
  readonly keyring: WebhookSecretKeyring;
  private readonly warnings: ThrottledLogger;

  constructor(@InjectConfig('webhooks') config: WebhooksConfig, clock: Clock) {
    this.keyring = webhookKeyringOf(config);
    this.warnings = new ThrottledLogger(
      WebhookSecretCipher.name,
      DEVELOPMENT_KEY_WARNING_INTERVAL_MS,
      clock,
    );
  }

  /** What every secret stored under the current key starts with. */
  get currentPrefix(): string {
    return storedPrefixOf(this.keyring.current);
  }

  get isCurrentKeyTheDevelopmentKey(): boolean {
    return this.keyring.current.id === DEVELOPMENT_SECRET_KEY_ID;
  }

  encrypt(secret: string): string {
    return encryptSecret(secret, this.keyring);
  }

  /** The secret, and the id of the key it was stored under; UnreadableSecretError if none opens it. */
  decrypt(stored: string): DecryptedSecret {
    const read = decryptSecret(stored, this.keyring);
    if (read.keyId === DEVELOPMENT_SECRET_KEY_ID && !this.isCurrentKeyTheDevelopmentKey) {
      this.warnings.warn(
        'development-key',
        'A webhook signing secret is still stored under the built-in development key, which ' +
          'anyone with a copy of the database can read: run `npx linkpilot webhooks ' +
          'rotate-encryption-key` (docs/webhooks.md "Webhooks", "Encryption keys")',
      );
    }
    return read;
  }
}
