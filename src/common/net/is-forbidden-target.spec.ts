import * as fc from 'fast-check';
import { isForbiddenTarget } from './is-forbidden-target';

const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
const ipv4In = (first: number, second?: fc.Arbitrary<number>) =>
  fc.tuple(second ?? octet, octet, octet).map(([b, c, d]) => `${first}.${b}.${c}.${d}`);
const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
/** An IPv6 address whose first hextet is drawn from `first`, the other seven at random. */
const ipv6With = (first: fc.Arbitrary<number>) =>
  fc
    .tuple(first, fc.array(hextet, { minLength: 7, maxLength: 7 }))
    .map(([head, rest]) => [head.toString(16), ...rest].join(':'));

describe(isForbiddenTarget.name, () => {
  it.each<[string, string]>([
    ['private 10/8', '10.0.0.1'],
    ['private 10/8, last address', '10.255.255.255'],
    ['private 172.16/12, first', '172.16.0.1'],
    ['private 172.16/12, last', '172.31.255.254'],
    ['private 192.168/16', '192.168.1.10'],
    ['loopback', '127.0.0.1'],
    ['loopback, elsewhere in 127/8', '127.53.1.2'],
    ['link-local (cloud metadata)', '169.254.169.254'],
    ['unspecified', '0.0.0.0'],
    ['this network 0/8', '0.1.2.3'],
    ['broadcast', '255.255.255.255'],
    ['multicast', '224.0.0.251'],
    ['carrier-grade NAT', '100.64.0.1'],
    ['carrier-grade NAT, last', '100.127.255.254'],
    ['documentation TEST-NET-1', '192.0.2.1'],
    ['benchmarking', '198.18.0.1'],
    ['reserved 240/4', '240.0.0.1'],
    ['a hostname', 'localhost'],
    ['empty text', ''],
  ])('should refuse %s (%s)', (_name, address) => {
    expect(isForbiddenTarget(address)).toBe(true);
  });

  it.each<[string, string]>([
    ['public IPv4', '93.184.215.14'],
    ['public DNS', '8.8.8.8'],
    ['just outside 172.16/12', '172.32.0.1'],
    ['just below 172.16/12', '172.15.255.255'],
    ['just outside carrier-grade NAT', '100.128.0.1'],
    ['just outside 192.168/16', '192.169.0.1'],
  ])('should allow %s (%s)', (_name, address) => {
    expect(isForbiddenTarget(address)).toBe(false);
  });

  describe('IPv6', () => {
    it.each<[string, string]>([
      ['unspecified ::', '::'],
      ['loopback ::1', '::1'],
      ['IPv4-compatible ::/96, hex spelling of 127.0.0.1', '::7f00:1'],
      ['IPv4-compatible ::/96, dotted loopback', '::127.0.0.1'],
      ['IPv4-compatible ::/96, even with a public IPv4', '::8.8.8.8'],
      ['IPv4-compatible ::/96, private', '::a00:1'],
      ['IPv4-compatible ::/96 as Node spells a DNS answer', '::93.184.215.14'],
      ['IPv4-compatible ::/96 with a zone', '::8.8.8.8%eth0'],
      ['IPv4-mapped private', '::ffff:10.0.0.1'],
      ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
      ['IPv4-mapped loopback, hex spelling', '::ffff:7f00:1'],
      ['IPv4-mapped link-local', '::ffff:169.254.169.254'],
      ['IPv4-mapped carrier-grade NAT', '::ffff:100.64.0.1'],
      ['IPv4-mapped unspecified', '::ffff:0.0.0.0'],
      ['IPv4-translated ::ffff:0:0:0/96, private', '::ffff:0:192.168.0.1'],
      ['IPv4-translated ::ffff:0:0:0/96, even with a public IPv4', '::ffff:0:8.8.8.8'],
      ['NAT64 64:ff9b::/96 to a private address', '64:ff9b::10.0.0.1'],
      ['NAT64 64:ff9b::/96 to loopback, hex spelling', '64:ff9b::7f00:1'],
      ['just outside NAT64 64:ff9b::/96', '64:ff9b::1:808:808'],
      ['local-use NAT64 64:ff9b:1::/48', '64:ff9b:1::8.8.8.8'],
      ['local-use NAT64 64:ff9b:1::/48, last', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
      ['discard 100::/64', '100::1'],
      ['discard 100::/64, last', '100::ffff:ffff:ffff:ffff'],
      ['unique local fc00::/7', 'fc00::1'],
      ['unique local fc00::/7, fd..', 'fd12:3456:789a::1'],
      ['unique local fc00::/7, last', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['link-local fe80::/10', 'fe80::1'],
      ['link-local fe80::/10 with a zone', 'fe80::1%eth0'],
      ['link-local fe80::/10, last', 'febf:ffff::1'],
      ['site-local fec0::/10', 'fec0::1'],
      ['site-local fec0::/10, last', 'feff:ffff::1'],
      ['multicast ff00::/8', 'ff02::1'],
      ['multicast ff00::/8, global scope', 'ff0e::101'],
      ['Teredo 2001::/32', '2001::1'],
      ['Teredo 2001::/32, a real-looking one', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
      ['benchmarking 2001:2::/48', '2001:2::1'],
      ['AMT 2001:3::/32', '2001:3::1'],
      ['AS112 2001:4:112::/48', '2001:4:112::1'],
      ['ORCHID 2001:10::/28', '2001:10::1'],
      ['ORCHIDv2 2001:20::/28', '2001:20::1'],
      ['ORCHIDv2 2001:20::/28, last', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['IETF protocol assignments 2001::/23, last', '2001:1ff:ffff::1'],
      ['documentation 2001:db8::/32', '2001:db8::1'],
      ['documentation 2001:db8::/32, last', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['documentation 3fff::/20', '3fff::1'],
      ['documentation 3fff::/20, last', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['6to4 2002::/16 to a private address', '2002:a00:1::'],
      ['6to4 2002::/16, even to a public address', '2002:808:808::1'],
      ['6to4 2002::/16, last', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['AS112 2620:4f:8000::/48', '2620:4f:8000::1'],
      ['just below 2000::/3', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['just above 2000::/3', '4000::1'],
      ['segment routing 5f00::/16, outside 2000::/3', '5f00::1'],
      ['unassigned e000::/4, outside 2000::/3', 'e000::1'],
      ['a malformed address', '2606:4700::11111'],
      ['two compressions', '2606::4700::1'],
    ])('should refuse %s (%s)', (_name, address) => {
      expect(isForbiddenTarget(address)).toBe(true);
    });

    it.each<[string, string]>([
      ['Cloudflare', '2606:4700::1111'],
      ['Cloudflare DNS', '2606:4700:4700::1111'],
      ['Google', '2a00:1450:4001:80b::200e'],
      ['Google DNS, just below 2002::/16', '2001:4860:4860::8888'],
      ['the start of 2000::/3', '2000::1'],
      ['just above 2001::/23', '2001:200::1'],
      ['just below 2001:db8::/32', '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['just above 2001:db8::/32', '2001:db9::1'],
      ['just above 2002::/16', '2003::1'],
      ['just above 3fff::/20', '3fff:1000::1'],
      ['just above 2620:4f:8000::/48', '2620:4f:8001::1'],
      ['upper case', '2A00:1450:4001:80B::200E'],
      ['IPv4-mapped public', '::ffff:8.8.8.8'],
      ['NAT64 64:ff9b::/96 to a public address', '64:ff9b::8.8.8.8'],
    ])('should allow %s (%s)', (_name, address) => {
      expect(isForbiddenTarget(address)).toBe(false);
    });
  });

  it('should refuse every address of the private, loopback, link-local and CGNAT blocks', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          ipv4In(10),
          ipv4In(127),
          ipv4In(172, fc.integer({ min: 16, max: 31 })),
          ipv4In(192, fc.constant(168)),
          ipv4In(169, fc.constant(254)),
          ipv4In(100, fc.integer({ min: 64, max: 127 })),
        ),
        (address) => {
          expect(isForbiddenTarget(address)).toBe(true);
        },
      ),
    );
  });

  it('should judge an IPv4-mapped or NAT64 address as the IPv4 address it carries', () => {
    fc.assert(
      fc.property(ipv4, fc.constantFrom('::ffff:', '64:ff9b::'), (address, prefix) => {
        expect(isForbiddenTarget(`${prefix}${address}`)).toBe(isForbiddenTarget(address));
      }),
    );
  });

  it('should refuse every IPv4-compatible, IPv4-translated and 6to4 address, whatever it carries', () => {
    fc.assert(
      fc.property(ipv4, hextet, (address, subnet) => {
        expect(isForbiddenTarget(`::${address}`)).toBe(true);
        expect(isForbiddenTarget(`::ffff:0:${address}`)).toBe(true);
        const [a, b, c, d] = address.split('.').map(Number);
        const sixToFour = `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        expect(isForbiddenTarget(`${sixToFour}:${subnet}::1`)).toBe(true);
      }),
    );
  });

  it('should refuse every address in fc00::/7, fe80::/10, fec0::/10 and ff00::/8', () => {
    fc.assert(
      fc.property(ipv6With(fc.integer({ min: 0xfc00, max: 0xffff })), (address) => {
        expect(isForbiddenTarget(address)).toBe(true);
      }),
    );
  });

  it('should refuse every full-length address outside 2000::/3', () => {
    // Seven explicit hextets after a non-zero first one: never ::ffff:0:0/96 or 64:ff9b::/96.
    const outsideGlobalUnicast = fc.oneof(
      fc.integer({ min: 1, max: 0x1fff }).filter((first) => first !== 0x64),
      fc.integer({ min: 0x4000, max: 0xffff }),
    );
    fc.assert(
      fc.property(ipv6With(outsideGlobalUnicast), (address) => {
        expect(isForbiddenTarget(address)).toBe(true);
      }),
    );
  });

  it('should allow global unicast outside the special blocks', () => {
    // 2400::/6 .. 2c00::/6 (the RIRs' space) holds none of the special blocks.
    fc.assert(
      fc.property(ipv6With(fc.integer({ min: 0x2400, max: 0x2fff })), (address) => {
        fc.pre(!address.startsWith('2620:4f:8000:'));
        expect(isForbiddenTarget(address)).toBe(false);
      }),
    );
  });
});
