import { expiryCutoffMs } from './deep-link-expiry';

const HOUR_MS = 3_600_000;
const NOW_MS = Date.parse('2025-11-20T12:00:00.000Z');

describe(expiryCutoffMs.name, () => {
  it.each<['validated' | 'invalid', number]>([
    ['validated', 72],
    ['invalid', 24],
  ])('should expire a %s result checked more than %d h ago', (status, hours) => {
    expect(expiryCutoffMs(status, NOW_MS)).toBe(NOW_MS - hours * HOUR_MS);
  });
});
