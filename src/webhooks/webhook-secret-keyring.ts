import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError, WebhooksConfig } from '../config/env';

/**
 * The key of a process that has no WEBHOOK_SECRET_KEY: SHA-256 of a string in this file, so
 * whoever holds a copy of the database can read every secret stored under it. It serves the
 * embedded default and WEBHOOK_ALLOW_DEVELOPMENT_KEY only; a server with a key of its own
 * still reads it (never writes it) so that existing installations can move their secrets
 * with `linkpilot webhooks rotate-encryption-key` (see DEVELOPMENT_KEY_READABLE_BEFORE).
 */
export const DEVELOPMENT_SECRET_KEY = createHash('sha256')
  .update('linkpilot webhook secrets, development only')
  .digest();

/**
 * The first release whose servers no longer read secrets stored under the development key
 * when they have a key of their own: before upgrading to it, rotate (docs/webhooks.md "Webhooks",
 * "Encryption keys"). A unit test fails once package.json reaches this version with the
 * fallback still in place.
 */
export const DEVELOPMENT_KEY_READABLE_BEFORE = '0.2.0';

/** One AES-256-GCM key and its id, written beside every ciphertext made with it. */
export interface SecretKey {
  id: string;
  key: Buffer;
}

/** The keys of one process: one to encrypt with, and those it may still decrypt with. */
export interface WebhookSecretKeyring {
  current: SecretKey;
  /** WEBHOOK_SECRET_KEY_PREVIOUS, then the development key when it is not current. */
  readOnly: SecretKey[];
}

/** Which key a stored secret was read with, so callers can report an old one. */
export interface DecryptedSecret {
  secret: string;
  keyId: string;
}

/** A stored secret no key of the keyring opens (a key dropped too early, or tampering). */
export class UnreadableSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableSecretError';
  }
}

/**
 * A key's id: 16 hex digits of a hash of the key, so every process derives the same id from
 * the same key with nothing else to configure. 64 bits tell a handful of keys apart and say
 * nothing usable about a 256-bit key.
 */
export function secretKeyIdOf(key: Buffer): string {
  return createHash('sha256')
    .update('linkpilot webhook secret key id\0')
    .update(key)
    .digest('hex')
    .slice(0, 16);
}

const toSecretKey = (key: Buffer): SecretKey => ({ id: secretKeyIdOf(key), key });

export const DEVELOPMENT_SECRET_KEY_ID = secretKeyIdOf(DEVELOPMENT_SECRET_KEY);

const MISSING_KEY_MESSAGE =
  'WEBHOOK_SECRET_KEY is required when DATABASE_URL is set: it encrypts the webhook signing ' +
  'secrets stored in PostgreSQL, which without it anyone with a copy of the database could ' +
  "read. Generate one with `openssl rand -hex 32` (or `node -e \"console.log(require('crypto')" +
  ".randomBytes(32).toString('hex'))\"`), give every server the same one and keep it safe. " +
  'On a development machine only, WEBHOOK_ALLOW_DEVELOPMENT_KEY=true uses the built-in key instead.';

/**
 * The keyring a server or the rotation command works with; a ConfigError when there is no
 * WEBHOOK_SECRET_KEY outside development, so the process stops before it stores or reads a
 * secret (main.ts prints the message and exits 1).
 */
export function webhookKeyringOf(config: WebhooksConfig): WebhookSecretKeyring {
  if (config.secretKey === null && config.developmentKeyAllowedBy === null) {
    throw new ConfigError([MISSING_KEY_MESSAGE]);
  }
  const current = toSecretKey(config.secretKey ?? DEVELOPMENT_SECRET_KEY);
  const readOnly: SecretKey[] = [];
  for (const key of [...config.previousSecretKeys, DEVELOPMENT_SECRET_KEY]) {
    const candidate = toSecretKey(key);
    const ids = [current, ...readOnly].map((known) => known.id);
    if (!ids.includes(candidate.id)) readOnly.push(candidate);
  }
  return { current, readOnly };
}

/** Stops a server that would store secrets under a known key: see webhookKeyringOf. */
export function assertWebhookKeyConfigured(config: WebhooksConfig): void {
  webhookKeyringOf(config);
}

/** The ciphertext format: `v1:<key id>:<base64 of iv (12) | tag (16) | ciphertext>`. */
const FORMAT = 'v1';

/** The prefix every secret stored under this key starts with. */
export function storedPrefixOf(key: SecretKey): string {
  return `${FORMAT}:${key.id}:`;
}

/** AES-256-GCM under the keyring's current key, with a fresh 96-bit IV. */
export function encryptSecret(secret: string, keyring: WebhookSecretKeyring): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.current.key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const payload = Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  return `${storedPrefixOf(keyring.current)}${payload}`;
}

/**
 * Reads a stored secret with the key its id names. A secret from before key ids (bare
 * base64) was stored under WEBHOOK_SECRET_KEY or the development key: each key is tried, and
 * GCM's tag tells the right one.
 */
export function decryptSecret(stored: string, keyring: WebhookSecretKeyring): DecryptedSecret {
  const keys = [keyring.current, ...keyring.readOnly];
  const match = /^v1:([0-9a-f]{16}):([A-Za-z0-9+/=]+)$/.exec(stored);
  if (match === null) {
    for (const key of keys) {
      const secret = openOrNull(stored, key.key);
      if (secret !== null) return { secret, keyId: key.id };
    }
    throw new UnreadableSecretError(
      'A signing secret stored before key ids opens with none of the configured keys',
    );
  }
  const [, keyId, payload] = match;
  const key = keys.find((candidate) => candidate.id === keyId);
  if (key === undefined) {
    throw new UnreadableSecretError(
      `A signing secret is stored under key ${keyId}, which is neither WEBHOOK_SECRET_KEY ` +
        'nor in WEBHOOK_SECRET_KEY_PREVIOUS',
    );
  }
  const secret = openOrNull(payload, key.key);
  if (secret === null) {
    throw new UnreadableSecretError(`A signing secret under key ${keyId} fails authentication`);
  }
  return { secret, keyId };
}

function openOrNull(payloadBase64: string, key: Buffer): string | null {
  const raw = Buffer.from(payloadBase64, 'base64');
  if (raw.length < 28) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
