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
        const keys = Object.values(edgeKeysOf(creatorId, 'live', ip, period));
        const tags = new Set(keys.map(hashTagOf));
        expect(tags).toEqual(new Set([`e${edgeShardOf(creatorId)}`]));
        expect(CLICK_STREAMS).toContain(edgeKeysOf(creatorId, 'live', ip, period).stream);
      }),
    );
  });

  it('should keep separate windows per address and per creator', () => {
    const a = edgeKeysOf('01JH2Z8Q6N3V4W5X6Y7Z8A9BCD', 'live', '203.0.113.1', '2026-11');
    const b = edgeKeysOf('01JH2Z8Q6N3V4W5X6Y7Z8A9BCD', 'live', '203.0.113.2', '2026-11');
    const c = edgeKeysOf('01JH2Z8Q6N3V4W5X6Y7Z8A9BCE', 'live', '203.0.113.1', '2026-11');
    expect(a.ipWindow).not.toBe(b.ipWindow);
    expect(a.creatorWindow).toBe(b.creatorWindow);
    expect(a.ipWindow).not.toBe(c.ipWindow);
  });

  it('should share one per-IP window across an IPv6 /64 and between an IPv4 address and its mapped form', () => {
    const creatorId = '01JH2Z8Q6N3V4W5X6Y7Z8A9BCD';
    const ipWindowOf = (ip: string) => edgeKeysOf(creatorId, 'live', ip, '2026-11').ipWindow;
    expect(ipWindowOf('2001:db8:1:2::1')).toBe(ipWindowOf('2001:db8:1:2:a:b:c:d'));
    expect(ipWindowOf('2001:db8:1:2::1')).not.toBe(ipWindowOf('2001:db8:1:3::1'));
    expect(ipWindowOf('::ffff:203.0.113.1')).toBe(ipWindowOf('203.0.113.1'));
  });

  it('should put every click’s keys in one hash slot for IPv6 and unparsable addresses too', () => {
    fc.assert(
      fc.property(ulid, fc.oneof(fc.ipV6(), fc.string()), periodId, (creatorId, ip, period) => {
        const tags = new Set(
          Object.values(edgeKeysOf(creatorId, 'live', ip, period)).map(hashTagOf),
        );
        expect(tags).toEqual(new Set([`e${edgeShardOf(creatorId)}`]));
      }),
    );
  });
});

describe('edge keys of the test environment', () => {
  const creatorId = '01JH2Z8Q6N3V4W5X6Y7Z8A9BCD';

  it('should give test clicks their own creator window and quota counter, and share the per-IP window', () => {
    const live = edgeKeysOf(creatorId, 'live', '203.0.113.1', '2026-11');
    const test = edgeKeysOf(creatorId, 'test', '203.0.113.1', '2026-11');
    expect(test.creatorWindow).not.toBe(live.creatorWindow);
    expect(test.quota).not.toBe(live.quota);
    expect(test.ipWindow).toBe(live.ipWindow);
    expect(test.stream).toBe(live.stream);
  });

  it('should keep the live quota counter name that stored counters already use', () => {
    expect(quotaCounterKey(creatorId, 'live', '2026-11')).toBe(
      `quota:{e${edgeShardOf(creatorId)}}:${creatorId}:2026-11`,
    );
    expect(quotaCounterKey(creatorId, 'test', '2026-11')).toBe(
      `quota:{e${edgeShardOf(creatorId)}}:${creatorId}:test:2026-11`,
    );
  });

  it('should put the test keys in the creator’s slot too', () => {
    fc.assert(
      fc.property(ulid, fc.ipV4(), periodId, (id, ip, period) => {
        const tags = new Set(Object.values(edgeKeysOf(id, 'test', ip, period)).map(hashTagOf));
        expect(tags).toEqual(new Set([`e${edgeShardOf(id)}`]));
      }),
    );
  });
});

describe(quotaCounterKey.name, () => {
  it('should name the creator and end with the period id', () => {
    const key = quotaCounterKey('01JH2Z8Q6N3V4W5X6Y7Z8A9BCD', 'live', '2025-03');
    expect(key).toMatch(/^quota:\{e\d+\}:01JH2Z8Q6N3V4W5X6Y7Z8A9BCD:2025-03$/);
  });

  it('should give each period its own key in the creator’s slot', () => {
    fc.assert(
      fc.property(ulid, periodId, periodId, (creatorId, a, b) => {
        expect(hashTagOf(quotaCounterKey(creatorId, 'live', a))).toBe(
          hashTagOf(quotaCounterKey(creatorId, 'live', b)),
        );
        expect(
          quotaCounterKey(creatorId, 'live', a) === quotaCounterKey(creatorId, 'live', b),
        ).toBe(a === b);
      }),
    );
  });
});
