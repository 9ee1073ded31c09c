import * as fc from 'fast-check';
import * as ipaddr from 'ipaddr.js';
import { clientAddressKey, UNREADABLE_ADDRESS_KEY } from './client-address-key';

const hextet = fc.integer({ min: 0, max: 0xffff });
const hextets = (count: number) => fc.array(hextet, { minLength: count, maxLength: count });
/** A /64 prefix; not ::/64, which holds the IPv4-mapped block (keyed as IPv4 instead). */
const prefix64 = hextets(4).filter((parts) => parts.some((part) => part !== 0));

/** The spellings a proxy may hand over for one address: compressed, full, padded, upper case. */
const SPELLINGS: ReadonlyArray<(address: ipaddr.IPv6) => string> = [
  (address) => address.toString(),
  (address) => address.toNormalizedString(),
  (address) => address.parts.map((part) => part.toString(16).padStart(4, '0')).join(':'),
  (address) => address.toString().toUpperCase(),
];
const spelling = fc.constantFrom(...SPELLINGS);
const addressIn = (prefix: number[], interfaceId: number[]) =>
  new ipaddr.IPv6([...prefix, ...interfaceId]);

describe(clientAddressKey.name, () => {
  it.each<[string, string, string]>([
    ['an IPv4 address as it stands', '203.0.113.7', '203.0.113.7'],
    ['another IPv4 address on its own', '203.0.113.8', '203.0.113.8'],
    ['an IPv6 address by its /64', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['another address of that /64 alike', '2001:db8:1:2:ffff::1', '2001:db8:1:2::/64'],
    ['the next /64 apart', '2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['a compressed IPv6 spelling', '2a00:1450:4001:80b::200e', '2a00:1450:4001:80b::/64'],
    [
      'a full, zero-padded spelling',
      '2a00:1450:4001:080b:0000:0000:0000:200e',
      '2a00:1450:4001:80b::/64',
    ],
    ['upper case', '2A00:1450:4001:80B::200E', '2a00:1450:4001:80b::/64'],
    ['zeros in the prefix', '2001:db8::1', '2001:db8:0:0::/64'],
    ['a zone', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['IPv6 loopback', '::1', '0:0:0:0::/64'],
    ['an IPv4-mapped address as its IPv4', '::ffff:198.51.100.4', '198.51.100.4'],
    ['an IPv4-mapped address in hex as its IPv4', '::ffff:c633:6404', '198.51.100.4'],
    ['an IPv6 address with an IPv4 tail by its /64', '64:ff9b::198.51.100.4', '64:ff9b:0:0::/64'],
    ['an IPv4 address without its port', '203.0.113.7:51234', '203.0.113.7'],
    ['a bracketed IPv6 address without its port', '[2001:db8::1]:443', '2001:db8:0:0::/64'],
    ['a bracketed IPv6 address with no port', '[2001:db8::1]', '2001:db8:0:0::/64'],
    ['a bracketed IPv4-mapped address as its IPv4', '[::ffff:198.51.100.4]:80', '198.51.100.4'],
    ['text that is no address as unreadable', 'evil-1', UNREADABLE_ADDRESS_KEY],
    ['other text alike', 'evil-2', UNREADABLE_ADDRESS_KEY],
    ['an octet over 255 as unreadable', '203.0.113.256', UNREADABLE_ADDRESS_KEY],
    ['three octets as unreadable', '203.0.113', UNREADABLE_ADDRESS_KEY],
    ['a leading zero as unreadable', '203.0.113.07', UNREADABLE_ADDRESS_KEY],
    ['spaces around an address as unreadable', ' 203.0.113.7', UNREADABLE_ADDRESS_KEY],
    ['malformed IPv6 as unreadable', '2001:db8::1::2', UNREADABLE_ADDRESS_KEY],
    ['a host name and port as unreadable', 'evil:80', UNREADABLE_ADDRESS_KEY],
    ['a port out of the bracket form as unreadable', '[evil]:80', UNREADABLE_ADDRESS_KEY],
    ['empty text as unreadable', '', UNREADABLE_ADDRESS_KEY],
  ])('should key %s (%s)', (_name, clientIp, key) => {
    expect(clientAddressKey(clientIp)).toBe(key);
  });

  it('should give every address of one /64 the same key, however it is spelt', () => {
    fc.assert(
      fc.property(
        prefix64,
        hextets(4),
        hextets(4),
        spelling,
        spelling,
        (prefix, first, second, spellFirst, spellSecond) => {
          expect(clientAddressKey(spellFirst(addressIn(prefix, first)))).toBe(
            clientAddressKey(spellSecond(addressIn(prefix, second))),
          );
        },
      ),
    );
  });

  it('should give addresses in different /64s different keys', () => {
    fc.assert(
      fc.property(
        prefix64,
        prefix64,
        hextets(4),
        hextets(4),
        spelling,
        (a, b, first, second, spell) => {
          fc.pre(a.some((part, i) => part !== b[i]));
          expect(clientAddressKey(spell(addressIn(a, first)))).not.toBe(
            clientAddressKey(spell(addressIn(b, second))),
          );
        },
      ),
    );
  });

  it('should key an IPv4 address and its IPv4-mapped form alike, and distinct IPv4s apart', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.ipV4(), (a, b) => {
        expect(clientAddressKey(`::ffff:${a}`)).toBe(clientAddressKey(a));
        expect(clientAddressKey(a) === clientAddressKey(b)).toBe(a === b);
      }),
    );
  });

  it('should never throw, whatever text a proxy forwards, and key only addresses apart', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.ipV6(), fc.ipV4Extended()), (text) => {
        const key = clientAddressKey(text);
        // Whatever the text, its key is an address's key or the one key of unreadable text,
        // so made-up values cannot open budgets of their own.
        const isAddressKey = ipaddr.IPv4.isValidFourPartDecimal(key) || key.endsWith('::/64');
        expect(isAddressKey || key === UNREADABLE_ADDRESS_KEY).toBe(true);
      }),
    );
  });

  it('should key any text that is no address and carries no port as unreadable', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!ipaddr.isValid(text) && !/^\[.*\]|:\d{1,5}$/.test(text));
        expect(clientAddressKey(text)).toBe(UNREADABLE_ADDRESS_KEY);
      }),
    );
  });
});
