import * as fc from 'fast-check';
import * as ipaddr from 'ipaddr.js';
import { isIpAllowed, normaliseAllowlistEntry } from './ip-allowlist';

describe(isIpAllowed.name, () => {
  it.each<[string, string, string[], boolean]>([
    ['the allowlist is empty (IPv4)', '10.1.2.3', [], true],
    ['the allowlist is empty (IPv6)', '2001:db8::1', [], true],
    ['the allowlist is empty and the client ip is invalid', 'not-an-ip', [], true],

    ['a single IPv4 entry is the client', '203.0.113.7', ['203.0.113.7'], true],
    ['a single IPv4 entry is a neighbour', '203.0.113.8', ['203.0.113.7'], false],
    ['the second entry matches', '198.51.100.1', ['203.0.113.7', '198.51.100.1'], true],

    ['the client is the first address of a /8', '10.0.0.0', ['10.0.0.0/8'], true],
    ['the client is the last address of a /8', '10.255.255.255', ['10.0.0.0/8'], true],
    ['the client is just above a /8', '11.0.0.0', ['10.0.0.0/8'], false],
    ['the client is just below a /8', '9.255.255.255', ['10.0.0.0/8'], false],
    ['the client is the first address of a /24', '192.168.1.0', ['192.168.1.0/24'], true],
    ['the client is the last address of a /24', '192.168.1.255', ['192.168.1.0/24'], true],
    ['the client is just above a /24', '192.168.2.0', ['192.168.1.0/24'], false],
    ['the client is just below a /24', '192.168.0.255', ['192.168.1.0/24'], false],
    ['the client is the address of a /32', '192.168.1.1', ['192.168.1.1/32'], true],
    ['the client is next to the address of a /32', '192.168.1.2', ['192.168.1.1/32'], false],
    ['the entry is 0.0.0.0/0', '8.8.8.8', ['0.0.0.0/0'], true],

    ['a single IPv6 entry is the client', '2001:db8::1', ['2001:db8::1'], true],
    [
      'a single IPv6 entry is the client spelled out',
      '2001:0db8:0:0:0:0:0:1',
      ['2001:db8::1'],
      true,
    ],
    ['a single IPv6 entry is a neighbour', '2001:db8::2', ['2001:db8::1'], false],
    ['the client is the first address of an IPv6 /64', '2001:db8::', ['2001:db8::/64'], true],
    [
      'the client is the last address of an IPv6 /64',
      '2001:db8::ffff:ffff:ffff:ffff',
      ['2001:db8::/64'],
      true,
    ],
    ['the client is in the next IPv6 /64', '2001:db8:0:1::', ['2001:db8::/64'], false],

    ['an IPv4-mapped IPv6 client is in an IPv4 CIDR', '::ffff:10.1.2.3', ['10.0.0.0/8'], true],
    ['an IPv4-mapped IPv6 client is a single IPv4 entry', '::ffff:10.1.2.3', ['10.1.2.3'], true],
    [
      'an IPv4-mapped IPv6 client is outside an IPv4 CIDR',
      '::ffff:11.1.2.3',
      ['10.0.0.0/8'],
      false,
    ],
    ['an IPv4 client meets an IPv4-mapped single entry', '10.1.2.3', ['::ffff:10.1.2.3'], true],

    ['an IPv4 client meets ::/0', '10.1.2.3', ['::/0'], false],
    ['an IPv4 client meets an IPv6 /32', '10.1.2.3', ['2001:db8::/32'], false],
    ['an IPv6 client meets 0.0.0.0/0', '2001:db8::1', ['0.0.0.0/0'], false],

    ['the client ip is garbage', 'not-an-ip', ['0.0.0.0/0', '::/0'], false],
    ['the client ip is empty', '', ['0.0.0.0/0', '::/0'], false],
    ['the client ip has an octet above 255', '10.0.0.256', ['0.0.0.0/0'], false],
    ['the client ip is a CIDR', '10.0.0.0/8', ['0.0.0.0/0'], false],

    ['an invalid entry precedes a matching one', '10.1.2.3', ['banana', '10.0.0.0/8'], true],
    [
      'every entry is invalid (not an empty list: deny)',
      '10.1.2.3',
      ['banana', '10.0.0.0/33'],
      false,
    ],
    ['an entry has too many prefix bits for IPv6', '2001:db8::1', ['2001:db8::/129'], false],
  ])('should decide when %s', (_name, clientIp, allowlist, expected) => {
    expect(isIpAllowed(clientIp, allowlist)).toBe(expected);
  });

  const nonMappedIpV6 = fc
    .ipV6()
    .filter((ip) => !(ipaddr.parse(ip) as ipaddr.IPv6).isIPv4MappedAddress());

  it('should admit an address when the allowlist holds a block built from that address', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 32 })),
          fc.tuple(nonMappedIpV6, fc.integer({ min: 0, max: 128 })),
        ),
        ([ip, bits]) => {
          expect(isIpAllowed(ip, [`${ip}/${bits}`])).toBe(true);
          expect(isIpAllowed(ip, [ip])).toBe(true);
        },
      ),
    );
  });

  it('should never match an IPv4 client against an IPv6 entry', () => {
    fc.assert(
      fc.property(
        fc.ipV4(),
        nonMappedIpV6,
        fc.integer({ min: 0, max: 128 }),
        (client, ip, bits) => {
          expect(isIpAllowed(client, [`${ip}/${bits}`, ip])).toBe(false);
        },
      ),
    );
  });
});

describe(normaliseAllowlistEntry.name, () => {
  it.each([
    ['10.0.0.1/32', '10.0.0.1'],
    ['10.0.0.1', '10.0.0.1'],
    ['  10.0.0.1  ', '10.0.0.1'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['192.168.1.0/24', '192.168.1.0/24'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:db8::1/128', '2001:db8::1'],
    ['2001:0db8:0000:0000::/64', '2001:db8::/64'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['::1', '::1'],
  ])('should normalise %j to %j when the entry is valid', (entry, expected) => {
    expect(normaliseAllowlistEntry(entry)).toBe(expected);
  });

  it.each([
    '',
    '   ',
    'banana',
    'localhost',
    '10.0.0.256',
    '10.0.0.0/33',
    '10.0.0.0/-1',
    '10.0.0.0/',
    '/24',
    '10.0.0.0/8/8',
    '10.0.0.0/abc',
    '2001:db8::/129',
    '2001:db8:::1',
    '1.2.3.4 5',
  ])('should return null when the entry is garbage (%j)', (entry) => {
    expect(normaliseAllowlistEntry(entry)).toBeNull();
  });

  it('should be idempotent and admit the same clients when normalising any valid entry', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.ipV4(),
          fc.ipV6(),
          fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 32 })).map(([ip, bits]) => `${ip}/${bits}`),
          fc
            .tuple(fc.ipV6(), fc.integer({ min: 0, max: 128 }))
            .map(([ip, bits]) => `${ip}/${bits}`),
        ),
        fc.oneof(fc.ipV4(), fc.ipV6()),
        (entry, client) => {
          const normalised = normaliseAllowlistEntry(entry);

          expect(normalised).not.toBeNull();
          expect(normaliseAllowlistEntry(normalised as string)).toBe(normalised);
          expect(isIpAllowed(client, [normalised as string])).toBe(isIpAllowed(client, [entry]));
        },
      ),
    );
  });
});

describe('standard spellings only', () => {
  it.each([
    ['010.001.002.003'],
    ['10'],
    ['1.2.3'],
    ['10/8'],
    ['167772161'],
    ['10.0.0.0/33'],
    ['10.0.0.1/8/8'],
  ])('should refuse %s when it is not a standard address or block', (entry) => {
    expect(normaliseAllowlistEntry(entry)).toBeNull();
  });

  it('should compare an IPv4-mapped IPv6 block as the IPv4 block it maps', () => {
    expect(isIpAllowed('10.1.2.3', ['::ffff:10.0.0.0/104'])).toBe(true);
    expect(isIpAllowed('11.1.2.3', ['::ffff:10.0.0.0/104'])).toBe(false);
  });

  it('should refuse a client address in a non-standard spelling', () => {
    expect(isIpAllowed('167772161', ['10.0.0.0/8'])).toBe(false);
  });
});
