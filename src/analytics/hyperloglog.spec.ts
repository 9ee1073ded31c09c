import fc from 'fast-check';
import {
  addToRegisters,
  countOf,
  countSerialized,
  emptyRegisters,
  HLL_DENSE_BYTES,
  HLL_REGISTERS,
  InvalidHyperLogLogError,
  mergeSerialized,
  murmurHash64A,
  parseSerialized,
  serialize,
} from './hyperloglog';

/** MurmurHash64A written the obvious way, on BigInt, as the reference for the 32-bit one. */
function referenceMurmur(data: Uint8Array, seed: number): bigint {
  const mask = (1n << 64n) - 1n;
  const m = 0xc6a4a7935bd1e995n;
  let h = BigInt(seed) ^ ((BigInt(data.length) * m) & mask);
  const blocksEnd = data.length - (data.length & 7);
  for (let at = 0; at < blocksEnd; at += 8) {
    let k = 0n;
    for (let i = 7; i >= 0; i--) k = (k << 8n) | BigInt(data[at + i]);
    k = (k * m) & mask;
    k ^= k >> 47n;
    k = (k * m) & mask;
    h ^= k;
    h = (h * m) & mask;
  }
  const tail = data.length & 7;
  if (tail > 0) {
    for (let i = tail - 1; i >= 0; i--) h ^= BigInt(data[blocksEnd + i]) << BigInt(8 * i);
    h = (h * m) & mask;
  }
  h ^= h >> 47n;
  h = (h * m) & mask;
  h ^= h >> 47n;
  return h;
}

/** Registers as Redis can hold them: 0 to 51, mostly low, as real sketches are. */
const registersArbitrary = fc
  .record({
    filled: fc.integer({ min: 0, max: HLL_REGISTERS }),
    seed: fc.integer(),
    maxValue: fc.constantFrom(1, 4, 32, 33, 51),
  })
  .map(({ filled, seed, maxValue }) => {
    const registers = emptyRegisters();
    let state = seed >>> 0;
    const next = (): number => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state;
    };
    for (let i = 0; i < filled; i++) registers[next() % HLL_REGISTERS] = 1 + (next() % maxValue);
    return registers;
  });

/** jest's toEqual walks typed arrays element by element: 16,384 of them is slow. */
const sameRegisters = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(b);

describe('HyperLogLog (Redis-compatible)', () => {
  it('should hash as MurmurHash64A on 64-bit integers does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.integer(), (data, seed) => {
        const [high, low] = murmurHash64A(data, seed >>> 0);
        expect((BigInt(high) << 32n) | BigInt(low)).toBe(referenceMurmur(data, seed >>> 0));
      }),
    );
  });

  it('should give back the same registers from their serialised form, sparse or dense', () => {
    fc.assert(
      fc.property(registersArbitrary, (registers) => {
        const bytes = serialize(registers);
        expect(sameRegisters(parseSerialized(bytes), registers)).toBe(true);
        expect(countSerialized(bytes)).toBe(countOf(registers));
        // Sparse only while it is the smaller form Redis would keep.
        expect(bytes.length <= 3000 || bytes.length === HLL_DENSE_BYTES).toBe(true);
        expect(bytes.subarray(0, 4).toString()).toBe('HYLL');
      }),
      { numRuns: 60 },
    );
  });

  it('should merge by the register maximum: commutative, idempotent, never lowering a count', () => {
    fc.assert(
      fc.property(registersArbitrary, registersArbitrary, (a, b) => {
        const ab = emptyRegisters();
        mergeSerialized(ab, serialize(a));
        mergeSerialized(ab, serialize(b));
        const ba = parseSerialized(serialize(b));
        mergeSerialized(ba, serialize(a));
        mergeSerialized(ba, serialize(a));
        expect(sameRegisters(ab, ba)).toBe(true);
        expect(countOf(ab)).toBeGreaterThanOrEqual(Math.max(countOf(a), countOf(b)));
      }),
      { numRuns: 40 },
    );
  });

  it('should count nothing as 0, and a few distinct elements exactly', () => {
    expect(countOf(emptyRegisters())).toBe(0);
    const registers = emptyRegisters();
    for (const element of ['a', 'b', 'c', 'a']) addToRegisters(registers, element);
    expect(countOf(registers)).toBe(3);
    expect(addToRegisters(registers, 'a')).toBe(false);
  });

  it('should refuse what is not a HyperLogLog Redis would accept', () => {
    const dense = serialize(new Uint8Array(HLL_REGISTERS).fill(40));
    expect(dense.length).toBe(HLL_DENSE_BYTES);
    for (const bytes of [
      Buffer.from('not a sketch at all'),
      Buffer.concat([dense, Buffer.from([0])]),
      // A sparse value that stops short of the last register.
      serialize(emptyRegisters()).subarray(0, 17),
    ]) {
      expect(() => parseSerialized(bytes)).toThrow(InvalidHyperLogLogError);
      expect(() => countSerialized(bytes)).toThrow(InvalidHyperLogLogError);
    }
  });
});
