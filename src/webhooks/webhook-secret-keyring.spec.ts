import { createCipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { ConfigError, WebhooksConfig } from '../config/env';
import {
  decryptSecret,
  DEVELOPMENT_KEY_READABLE_BEFORE,
  DEVELOPMENT_SECRET_KEY,
  DEVELOPMENT_SECRET_KEY_ID,
  encryptSecret,
  secretKeyIdOf,
  storedPrefixOf,
  UnreadableSecretError,
  webhookKeyringOf,
} from './webhook-secret-keyring';
import { generateSigningSecret } from './webhook-signing';

const configOf = (
  secretKey: Buffer | null,
  previousSecretKeys: Buffer[] = [],
  developmentKeyAllowedBy: WebhooksConfig['developmentKeyAllowedBy'] = null,
): WebhooksConfig => ({
  workerEnabled: false,
  allowPrivateTargets: false,
  secretKey,
  previousSecretKeys,
  developmentKeyAllowedBy,
});

/** What servers wrote before key ids: bare base64 of iv | tag | ciphertext. */
function encryptAsBefore(secret: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes));
const twoKeys = fc
  .tuple(key, key)
  .filter(([first, second]) => !first.equals(second) && !first.equals(DEVELOPMENT_SECRET_KEY));
const secret = fc.oneof(
  fc.constant(generateSigningSecret()),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
);

describe(encryptSecret.name, () => {
  it('should read back every secret under the current key, and name that key', () => {
    fc.assert(
      fc.property(key, secret, (current, plain) => {
        const keyring = webhookKeyringOf(configOf(current));
        const stored = encryptSecret(plain, keyring);
        expect(stored.startsWith(storedPrefixOf(keyring.current))).toBe(true);
        expect(decryptSecret(stored, keyring)).toEqual({
          secret: plain,
          keyId: secretKeyIdOf(current),
        });
      }),
    );
  });

  it('should read under the previous key after a rotation, and need it no more once re-encrypted', () => {
    fc.assert(
      fc.property(twoKeys, secret, ([oldKey, newKey], plain) => {
        const stored = encryptSecret(plain, webhookKeyringOf(configOf(oldKey)));
        const rotating = webhookKeyringOf(configOf(newKey, [oldKey]));
        const read = decryptSecret(stored, rotating);
        expect(read).toEqual({ secret: plain, keyId: secretKeyIdOf(oldKey) });

        const reencrypted = encryptSecret(read.secret, rotating);
        const afterwards = webhookKeyringOf(configOf(newKey));
        expect(decryptSecret(reencrypted, afterwards).secret).toBe(plain);
        expect(() => decryptSecret(stored, afterwards)).toThrow(UnreadableSecretError);
      }),
    );
  });

  it('should never store the secret in clear, nor twice alike', () => {
    const keyring = webhookKeyringOf(configOf(randomBytes(32)));
    const plain = generateSigningSecret();
    const first = encryptSecret(plain, keyring);
    expect(first).not.toContain(plain.slice(6));
    expect(encryptSecret(plain, keyring)).not.toBe(first);
  });
});

describe(decryptSecret.name, () => {
  const current = randomBytes(32);
  const keyring = webhookKeyringOf(configOf(current));

  it('should read what was stored before key ids, under the operator key or the built-in one', () => {
    const plain = generateSigningSecret();
    expect(decryptSecret(encryptAsBefore(plain, current), keyring)).toEqual({
      secret: plain,
      keyId: secretKeyIdOf(current),
    });
    expect(decryptSecret(encryptAsBefore(plain, DEVELOPMENT_SECRET_KEY), keyring)).toEqual({
      secret: plain,
      keyId: DEVELOPMENT_SECRET_KEY_ID,
    });
  });

  it.each<[string, () => string]>([
    [
      'another key wrote it',
      () => encryptSecret('whsec_x', webhookKeyringOf(configOf(randomBytes(32)))),
    ],
    ['another key wrote it before key ids', () => encryptAsBefore('whsec_x', randomBytes(32))],
    [
      'its ciphertext was changed',
      () => {
        const stored = encryptSecret('whsec_x', keyring);
        const last = stored.at(-3) === 'A' ? 'B' : 'A';
        return `${stored.slice(0, -3)}${last}${stored.slice(-2)}`;
      },
    ],
    ['it is too short to hold a tag', () => `${storedPrefixOf(keyring.current)}AAAA`],
    ['it is not base64', () => 'not a ciphertext'],
  ])('should refuse a stored secret when %s', (_name, stored) => {
    expect(() => decryptSecret(stored(), keyring)).toThrow(UnreadableSecretError);
  });
});

describe(webhookKeyringOf.name, () => {
  it('should refuse to run without a key outside development, saying how to make one', () => {
    expect(() => webhookKeyringOf(configOf(null))).toThrow(ConfigError);
    expect(() => webhookKeyringOf(configOf(null))).toThrow(
      /WEBHOOK_SECRET_KEY.*openssl rand -hex 32/s,
    );
  });

  it.each(['embedded-database', 'WEBHOOK_ALLOW_DEVELOPMENT_KEY'] as const)(
    'should use the built-in key when allowed by %s',
    (allowedBy) => {
      const keyring = webhookKeyringOf(configOf(null, [], allowedBy));
      expect(keyring.current.id).toBe(DEVELOPMENT_SECRET_KEY_ID);
      expect(keyring.readOnly).toEqual([]);
    },
  );

  it('should read with the previous keys and the built-in one, in that order, each once', () => {
    const [current, previous] = [randomBytes(32), randomBytes(32)];
    const keyring = webhookKeyringOf(configOf(current, [previous, current, previous]));
    expect(keyring.current.id).toBe(secretKeyIdOf(current));
    expect(keyring.readOnly.map((entry) => entry.id)).toEqual([
      secretKeyIdOf(previous),
      DEVELOPMENT_SECRET_KEY_ID,
    ]);
  });

  it(`should stop reading the built-in key beside an operator key from ${DEVELOPMENT_KEY_READABLE_BEFORE} on`, () => {
    const manifest = JSON.parse(
      readFileSync(path.join(__dirname, '../../package.json'), 'utf8'),
    ) as { version: string };
    const [major, minor] = manifest.version.split('.').map(Number);
    const [untilMajor, untilMinor] = DEVELOPMENT_KEY_READABLE_BEFORE.split('.').map(Number);
    // Reaching that release: remove DEVELOPMENT_SECRET_KEY from webhookKeyringOf's readOnly
    // keys, and this test, and the README's note on it.
    expect(major * 1000 + minor).toBeLessThan(untilMajor * 1000 + untilMinor);
  });
});
