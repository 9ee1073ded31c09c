import * as fc from 'fast-check';
import { DEEP_LINK_TTL_MS, expiryCutoffMs, isExpired } from './deep-link-expiry';

const HOUR_MS = 3_600_000;
const CHECKED_AT = new Date('2025-11-20T12:00:00.000Z');
const at = (offsetMs: number): number => CHECKED_AT.getTime() + offsetMs;

describe(isExpired.name, () => {
  it.each<[string, string, Date | null, number, boolean]>([
    ['validated, just checked', 'validated', CHECKED_AT, at(0), false],
    ['validated, 24 h later', 'validated', CHECKED_AT, at(24 * HOUR_MS), false],
    ['validated, exactly 72 h later', 'validated', CHECKED_AT, at(72 * HOUR_MS), false],
    ['validated, 72 h + 1 ms later', 'validated', CHECKED_AT, at(72 * HOUR_MS + 1), true],
    ['validated, a week later', 'validated', CHECKED_AT, at(7 * 24 * HOUR_MS), true],
    ['invalid, 23 h later', 'invalid', CHECKED_AT, at(23 * HOUR_MS), false],
    ['invalid, exactly 24 h later', 'invalid', CHECKED_AT, at(24 * HOUR_MS), false],
    ['invalid, 24 h + 1 ms later', 'invalid', CHECKED_AT, at(24 * HOUR_MS + 1), true],
    ['validated with no check time', 'validated', null, at(0), true],
    ['invalid with no check time', 'invalid', null, at(0), true],
    ['unchecked, long ago', 'unchecked', CHECKED_AT, at(365 * 24 * HOUR_MS), false],
    ['unchecked with no check time', 'unchecked', null, at(0), false],
    ['already ttl_expired', 'ttl_expired', CHECKED_AT, at(365 * 24 * HOUR_MS), false],
    ['validated, checked in the future (clock skew)', 'validated', CHECKED_AT, at(-HOUR_MS), false],
  ])('should decide %s', (_name, status, checkedAt, nowMs, expected) => {
    expect(isExpired(status, checkedAt, nowMs)).toBe(expected);
  });

  it('should stay expired once expired, as time goes on', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('validated', 'invalid'),
        fc.integer({ min: -HOUR_MS, max: 200 * HOUR_MS }),
        fc.nat({ max: 100 * HOUR_MS }),
        (status, offsetMs, laterMs) => {
          fc.pre(isExpired(status, CHECKED_AT, at(offsetMs)));

          expect(isExpired(status, CHECKED_AT, at(offsetMs + laterMs))).toBe(true);
        },
      ),
    );
  });

  it('should agree with the cutoff the sweep queries by', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<keyof typeof DEEP_LINK_TTL_MS>('validated', 'invalid'),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (status, checkedAtMs, nowMs) => {
          expect(isExpired(status, new Date(checkedAtMs), nowMs)).toBe(
            checkedAtMs < expiryCutoffMs(status, nowMs),
          );
        },
      ),
    );
  });
});
