import * as fc from 'fast-check';
import {
  displayPrefixOf,
  generateApiKey,
  hashApiKey,
  isSameHash,
  parseApiKey,
} from './api-key-format';

const KEY_FORMAT = /^lp_(live|test)_sk_[0-9a-f]{40}$/;
const HEX = '0123456789abcdef';
const ENVIRONMENTS = ['live', 'test'] as const;

const fixedRandom =
  (byte: number) =>
  (size: number): Buffer =>
    Buffer.alloc(size, byte);

const randomSourceArbitrary = fc
  .uint8Array({ minLength: 16, maxLength: 16 })
  .map((bytes) => (size: number) => Buffer.from(bytes).subarray(0, size));

// Known-good keys: their checksums were computed once with `crc32` from node:zlib and are pinned
// here so that a change of the checksum algorithm (which would invalidate issued keys) fails.
const LIVE_KEY_OF_ZEROS = `lp_live_sk_${'00'.repeat(16)}6780541f`;
const TEST_KEY_OF_ABS = `lp_test_sk_${'ab'.repeat(16)}639c1b7d`;

describe(generateApiKey.name, () => {
  it.each(ENVIRONMENTS)(
    'should produce a key of the documented format that parses when the environment is %s',
    (environment) => {
      const key = generateApiKey(environment);

      expect(key).toMatch(KEY_FORMAT);
      expect(key.startsWith(`lp_${environment}_sk_`)).toBe(true);
      expect(parseApiKey(key)).toEqual({ environment });
    },
  );

  it.each([
    { environment: 'live' as const, byte: 0x00 },
    { environment: 'test' as const, byte: 0xab },
  ])(
    'should be deterministic when the random source is injected ($environment, byte $byte)',
    ({ environment, byte }) => {
      const random = jest.fn(fixedRandom(byte));

      const first = generateApiKey(environment, random);
      const second = generateApiKey(environment, random);

      expect(first).toBe(second);
      expect(random).toHaveBeenCalledWith(16);
    },
  );

  it.each([
    { environment: 'live' as const, byte: 0x00, expected: LIVE_KEY_OF_ZEROS },
    { environment: 'test' as const, byte: 0xab, expected: TEST_KEY_OF_ABS },
  ])(
    'should append the pinned CRC-32 checksum when the random bytes are all $byte',
    ({ environment, byte, expected }) => {
      expect(generateApiKey(environment, fixedRandom(byte))).toBe(expected);
    },
  );

  it('should produce parseable keys of the documented format when the random bytes are arbitrary', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ENVIRONMENTS),
        randomSourceArbitrary,
        (environment, random) => {
          const key = generateApiKey(environment, random);

          expect(key).toMatch(KEY_FORMAT);
          expect(parseApiKey(key)).toEqual({ environment });
        },
      ),
    );
  });

  it('should produce different keys when called twice with the default random source', () => {
    expect(generateApiKey('live')).not.toBe(generateApiKey('live'));
  });
});

describe(parseApiKey.name, () => {
  const validLive = LIVE_KEY_OF_ZEROS;
  const validTest = TEST_KEY_OF_ABS;

  it.each([
    { key: validLive, expected: { environment: 'live' } },
    { key: validTest, expected: { environment: 'test' } },
  ])('should return the environment when the key is valid ($key)', ({ key, expected }) => {
    expect(parseApiKey(key)).toEqual(expected);
  });

  it.each([
    { name: 'the string is empty', key: '' },
    { name: 'the prefix is not lp_', key: `xx${validLive.slice(2)}` },
    { name: 'the environment is unknown', key: validLive.replace('live', 'prod') },
    { name: 'it is a publishable key (lp_live_pk_)', key: validLive.replace('_sk_', '_pk_') },
    { name: 'the hex is upper-case', key: `lp_test_sk_${validTest.slice(11).toUpperCase()}` },
    { name: 'the prefix is upper-case', key: `LP_LIVE_SK_${validLive.slice(11)}` },
    { name: 'one hex digit is missing', key: validLive.slice(0, -1) },
    { name: 'there is one extra hex digit', key: `${validLive}0` },
    { name: 'it has a trailing newline', key: `${validLive}\n` },
    { name: 'it has surrounding spaces', key: ` ${validLive} ` },
    { name: 'it is a Bearer header value', key: `Bearer ${validLive}` },
    { name: 'the checksum does not match', key: `lp_live_sk_${'00'.repeat(16)}00000000` },
    { name: 'the body contains a non-hex letter', key: `lp_live_sk_${'0g'.repeat(16)}6780541f` },
  ])('should return null when $name', ({ key }) => {
    expect(parseApiKey(key)).toBeNull();
  });

  it('should refuse the key when any single character of a valid key is changed', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ENVIRONMENTS),
        randomSourceArbitrary,
        fc.nat(),
        fc.nat(),
        (environment, random, positionSeed, replacementSeed) => {
          const key = generateApiKey(environment, random);
          const position = positionSeed % key.length;
          const candidates = [...HEX].filter((char) => char !== key[position]);
          const replacement = candidates[replacementSeed % candidates.length];
          const mutated = key.slice(0, position) + replacement + key.slice(position + 1);

          expect(parseApiKey(mutated)).toBeNull();
        },
      ),
    );
  });
});

describe(hashApiKey.name, () => {
  it('should return 64 lower-case hex digits when given a key', () => {
    expect(hashApiKey(LIVE_KEY_OF_ZEROS)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('should be deterministic and distinguish keys when hashing arbitrary keys', () => {
    fc.assert(
      fc.property(randomSourceArbitrary, randomSourceArbitrary, (randomA, randomB) => {
        const a = generateApiKey('live', randomA);
        const b = generateApiKey('live', randomB);

        expect(hashApiKey(a)).toBe(hashApiKey(a));
        expect(hashApiKey(a) === hashApiKey(b)).toBe(a === b);
      }),
    );
  });

  it('should be SHA-256 when given the standard test vector', () => {
    expect(hashApiKey('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});

describe(isSameHash.name, () => {
  const hashA = hashApiKey(LIVE_KEY_OF_ZEROS);
  const hashB = hashApiKey(TEST_KEY_OF_ABS);

  it.each([
    { name: 'both hashes are equal', a: hashA, b: hashA, expected: true },
    { name: 'the hashes differ', a: hashA, b: hashB, expected: false },
    {
      name: 'only the last digit differs',
      a: hashA,
      b: `${hashA.slice(0, -1)}${hashA.endsWith('0') ? '1' : '0'}`,
      expected: false,
    },
    { name: 'one hash is shorter', a: hashA, b: hashA.slice(0, 62), expected: false },
    { name: 'one hash is empty', a: hashA, b: '', expected: false },
  ])('should return $expected when $name', ({ a, b, expected }) => {
    expect(isSameHash(a, b)).toBe(expected);
  });
});

describe(displayPrefixOf.name, () => {
  it.each([
    { key: LIVE_KEY_OF_ZEROS, expected: 'lp_live_sk_0000' },
    { key: TEST_KEY_OF_ABS, expected: 'lp_test_sk_abab' },
  ])(
    'should return the environment prefix and 4 hex digits when given $key',
    ({ key, expected }) => {
      expect(displayPrefixOf(key)).toBe(expected);
    },
  );

  it('should return 15 characters and never the whole key when given any generated key', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ENVIRONMENTS),
        randomSourceArbitrary,
        (environment, random) => {
          const key = generateApiKey(environment, random);

          const prefix = displayPrefixOf(key);

          expect(prefix).toHaveLength(15);
          expect(key.startsWith(prefix)).toBe(true);
          expect(prefix).not.toBe(key);
          // 36 of the 40 hex digits stay hidden.
          expect(key.length - prefix.length).toBe(36);
        },
      ),
    );
  });
});
