import { createHmac, randomBytes } from 'node:crypto';
import {
  decryptSecret,
  encryptSecret,
  generateSigningSecret,
  signatureHeader,
} from './webhook-signing';

describe('signatureHeader', () => {
  it('should sign "<t>.<body>" with each secret, newest first', () => {
    const body = '{"id":"x"}';
    const header = signatureHeader(['whsec_new', 'whsec_old'], 1700000000, body);
    const expected = (secret: string) =>
      createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${expected('whsec_new')},v1=${expected('whsec_old')}`);
  });
});

describe('encryptSecret', () => {
  it('should read back what it stored, and refuse another key', () => {
    const key = randomBytes(32);
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const stored = encryptSecret(secret, key);
    expect(stored).not.toContain(secret.slice(6));
    expect(decryptSecret(stored, key)).toBe(secret);
    expect(() => decryptSecret(stored, randomBytes(32))).toThrow();
  });
});
