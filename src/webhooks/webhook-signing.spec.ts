import { createHmac } from 'node:crypto';
import { generateSigningSecret, signatureHeader } from './webhook-signing';

describe('signatureHeader', () => {
  it('should sign "<t>.<body>" with each secret, newest first', () => {
    const body = '{"id":"x"}';
    const header = signatureHeader(['whsec_new', 'whsec_old'], 1700000000, body);
    const expected = (secret: string) =>
      createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${expected('whsec_new')},v1=${expected('whsec_old')}`);
  });
});

describe(generateSigningSecret.name, () => {
  it('should make whsec_ and 32 random bytes in base64url', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateSigningSecret()).not.toBe(secret);
  });
});
