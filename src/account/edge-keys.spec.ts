import * as fc from 'fast-check';
import { CLICK_STREAMS, edgeShardOf } from '../analytics/click-streams';
import { edgeKeysOf, quotaCounterKey } from './edge-keys';

const hashTagOf = (key: string): string | null => /\{([^}]+)\}/.exec(key)?.[1] ?? null;
const ulid = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/);
const periodId = fc
  .tuple(fc.integer({ min: 2000, max: 2999 }), fc.integer({ min: 1, max: 12 }))
  .map(([year, month]) => `${year}-${String(month).padStart(2, '0')}`);

describe(edgeKeysOf.name, () => {
  it('should put all of a click’s keys in one hash slot when given any creator, address and period', () => {
    fc.assert(
      fc.property(ulid, fc.ipV4(), periodId, (creatorId, ip, period) => {
        const keys = Object.values(edgeKeysOf(creatorId, ip, period));
        const tags = new Set(keys.map(hashTagOf));
        expect(tags).toEqual(new Set([`e${edgeShardOf(creatorId)}`]));
        expect(CLICK_STREAMS).toContain(edgeKeysOf(creatorId, ip, period).stream);
      }),
    );
  });

  it('should keep separate windows per address and per creator', () => {
    const a = edgeKeysOf('01JH2Z8Q6N3V4W5X6Y7Z8A9BCD', '203.0.113.1', '2026-11');
    const b = edgeKeysOf('01JH2Z8Q6N3V4W5X6Y7Z8A9BCD', '203.0.113.2', '2026-11');
    const c = edgeKeysOf('01JH2Z8Q6N3V4W5X6Y7Z8A9BCE', '203.0.113.1', '2026-11');
    expect(a.ipWindow).not.toBe(b.ipWindow);
    expect(a.creatorWindow).toBe(b.creatorWindow);
    expect(a.ipWindow).not.toBe(c.ipWindow);
  });

  it('should share one per-IP window across an IPv6 /64 and between an IPv4 address and its mapped form', () => {
    const creatorId = '01JH2Z8Q6N3V4W5X6Y7Z8A9BCD';
    const ipWindowOf = (ip: string) => edgeKeysOf(creatorId, ip, '2026-11').ipWindow;
    expect(ipWindowOf('2001:db8:1:2::1')).toBe(ipWindowOf('2001:db8:1:2:a:b:c:d'));
    expect(ipWindowOf('2001:db8:1:2::1')).not.toBe(ipWindowOf('2001:db8:1:3::1'));
    expect(ipWindowOf('::ffff:203.0.113.1')).toBe(ipWindowOf('203.0.113.1'));
  });

  it('should put every click’s keys in one hash slot for IPv6 and unparsable addresses too', () => {
    fc.assert(
      fc.property(ulid, fc.oneof(fc.ipV6(), fc.string()), periodId, (creatorId, ip, period) => {
        const tags = new Set(Object.values(edgeKeysOf(creatorId, ip, period)).map(hashTagOf));
        expect(tags).toEqual(new Set([`e${edgeShardOf(creatorId)}`]));
      }),
    );
  });
});

describe(quotaCounterKey.name, () => {
  it('should name the creator and end with the period id', () => {
    const key = quotaCounterKey('01JH2Z8Q6N3V4W5X6Y7Z8A9BCD', '2025-03');
    expect(key).toMatch(/^quota:\{e\d+\}:01JH2Z8Q6N3V4W5X6Y7Z8A9BCD:2025-03$/);
  });

  it('should give each period its own key in the creator’s slot', () => {
    fc.assert(
      fc.property(ulid, periodId, periodId, (creatorId, a, b) => {
        expect(hashTagOf(quotaCounterKey(creatorId, a))).toBe(
          hashTagOf(quotaCounterKey(creatorId, b)),
        );
        expect(quotaCounterKey(creatorId, a) === quotaCounterKey(creatorId, b)).toBe(a === b);
      }),
    );
  });
});
