import { createHmac, randomBytes } from 'node:crypto';

/** Signing secrets are `whsec_` and 32 random bytes in base64url. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
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
