import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/** Signing secrets are `whsec_` and 32 random bytes in base64url. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * Used when WEBHOOK_SECRET_KEY is unset (development and tests): stored secrets are then
 * only as safe as the database. Derived, not random, so a restart can still read them.
 */
export const DEVELOPMENT_SECRET_KEY = createHash('sha256')
  .update('linkpilot webhook secrets, development only')
  .digest();

/** AES-256-GCM, stored as base64 of iv (12) | tag (16) | ciphertext. */
export function encryptSecret(secret: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

export function decryptSecret(stored: string, key: Buffer): string {
  const raw = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * `Linkpilot-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, one
 * v1 per secret (during a rotation the new secret's first, then the previous one's).
 */
export function signatureHeader(secrets: string[], timestampSeconds: number, body: string): string {
  const signed = `${timestampSeconds}.${body}`;
  const signatures = secrets.map(
    (secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`,
  );
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}
