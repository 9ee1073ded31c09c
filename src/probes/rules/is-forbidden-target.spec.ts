import * as fc from 'fast-check';
import { isForbiddenTarget } from './is-forbidden-target';

const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
const ipv4In = (first: number, second?: fc.Arbitrary<number>) =>
  fc.tuple(second ?? octet, octet, octet).map(([b, c, d]) => `${first}.${b}.${c}.${d}`);

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
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv6 unique local fc00::/7', 'fc00::1'],
    ['IPv6 unique local fd..', 'fd12:3456:789a::1'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 link-local with a zone', 'fe80::1%eth0'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4-mapped private', '::ffff:10.0.0.1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, hex spelling', '::ffff:7f00:1'],
    ['IPv4-mapped link-local', '::ffff:169.254.169.254'],
    ['IPv4-mapped carrier-grade NAT', '::ffff:100.64.0.1'],
    ['IPv4-translated private', '::ffff:0:192.168.0.1'],
    ['NAT64 to a private address', '64:ff9b::10.0.0.1'],
    ['local-use NAT64', '64:ff9b:1::8.8.8.8'],
    ['6to4', '2002:a00:1::'],
    ['Teredo', '2001::1'],
    ['IPv6 documentation', '2001:db8::1'],
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
    ['public IPv6', '2606:4700:4700::1111'],
    ['IPv4-mapped public', '::ffff:8.8.8.8'],
    ['NAT64 to a public address', '64:ff9b::8.8.8.8'],
  ])('should allow %s (%s)', (_name, address) => {
    expect(isForbiddenTarget(address)).toBe(false);
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

  it('should judge an IPv4-mapped IPv6 address as the IPv4 address it maps', () => {
    fc.assert(
      fc.property(ipv4, (address) => {
        expect(isForbiddenTarget(`::ffff:${address}`)).toBe(isForbiddenTarget(address));
      }),
    );
  });

  it('should refuse every address in fc00::/7 and fe80::/10', () => {
    const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0xfc00, max: 0xfdff }),
          fc.integer({ min: 0xfe80, max: 0xfebf }),
        ),
        fc.array(hextet, { minLength: 7, maxLength: 7 }),
        (first, rest) => {
          expect(isForbiddenTarget([first.toString(16), ...rest].join(':'))).toBe(true);
        },
      ),
    );
  });
});
