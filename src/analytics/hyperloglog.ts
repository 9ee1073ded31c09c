/**
 * Redis's HyperLogLog in TypeScript, bit for bit (Redis 5 and later, src/hyperloglog.c): the
 * same hash (MurmurHash64A, seed 0xadc83b19), the same 16,384 registers of 6 bits (P = 14),
 * the same serialisation (the "HYLL" header, dense and sparse encodings) and the same
 * estimator (hllCount: Ertl's improved estimator with hllSigma and hllTau). So registers
 * taken from Redis (GET of a PFADDed key) and kept elsewhere (PostgreSQL) merge with the
 * ones still in Redis into exactly what PFCOUNT over all of them would answer, and the
 * in-process store's twin of PFADD builds the very registers Redis builds.
 * test/contract/hyperloglog-redis.spec.ts checks all of it against a real Redis.
 *
 * Registers are handled "raw" here, one byte each (Uint8Array of HLL_REGISTERS), as Redis's
 * PFCOUNT of several keys merges them; only the serialised form packs them.
 */

const HLL_P = 14;
export const HLL_REGISTERS = 1 << HLL_P;
/** Bits of the hash left after the index: a register holds at most HLL_Q + 1. */
const HLL_Q = 64 - HLL_P;
const HLL_P_MASK = HLL_REGISTERS - 1;
const HEADER_BYTES = 16;
/** Header and 16,384 registers of 6 bits: the only valid length of a dense value. */
export const HLL_DENSE_BYTES = HEADER_BYTES + (HLL_REGISTERS * 6) / 8;
const DENSE = 0;
const SPARSE = 1;
/**
 * Redis's default `hll-sparse-max-bytes`: past it Redis turns a sparse value dense, and so
 * does serialise(). About 1,000 to 2,000 distinct elements fit.
 */
const SPARSE_MAX_BYTES = 3000;
/**
 * Sparse opcodes: ZERO 00xxxxxx (1 to 64 zeros), XZERO 01xxxxxx yyyyyyyy (1 to 16,384 zeros,
 * so any run of zeros fits one), VAL 1vvvvvxx (a value of 1 to 32, 1 to 4 times).
 */
const ZERO_MAX_RUN = 64;
const VAL_MAX_VALUE = 32;
const VAL_MAX_RUN = 4;
// Redis writes 0.721347520444481703680 (0.5 / ln 2): the same double.
const ALPHA_INF = 0.7213475204444817;
/** Redis's seed for MurmurHash64A in hllPatLen. */
const SEED = 0xadc83b19;

const MAGIC = [0x48, 0x59, 0x4c, 0x4c]; // "HYLL"

/** A register's index and the value an element would raise it to (hllPatLen). */
export interface RegisterPattern {
  index: number;
  count: number;
}

/** Empty raw registers, to merge into. */
export function emptyRegisters(): Uint8Array {
  return new Uint8Array(HLL_REGISTERS);
}

/**
 * hllPatLen: the low 14 bits of the hash pick the register; the value is the position of
 * the first 1 among the 50 bits above (counting from 1), 51 when all 50 are 0.
 */
export function patternOf(element: string | Uint8Array): RegisterPattern {
  const bytes = typeof element === 'string' ? Buffer.from(element, 'utf8') : element;
  const [high, low] = murmurHash64A(bytes, SEED);
  const index = low & HLL_P_MASK;
  const lowRest = low >>> HLL_P; // 18 bits
  let count: number;
  if (lowRest !== 0) count = trailingZeros(lowRest) + 1;
  else if (high !== 0) count = 32 - HLL_P + trailingZeros(high) + 1;
  else count = HLL_Q + 1;
  return { index, count };
}

const trailingZeros = (value: number): number => 31 - Math.clz32(value & -value);

/**
 * MurmurHash64A as Redis has it (endian neutral: 8-byte blocks read little-endian), on
 * unsigned 32-bit halves, as [high, low]: a 64-bit product mod 2^64 from 16-bit limbs, every
 * intermediate an exact double (below 2^53). The unit spec checks it against BigInt.
 */
export function murmurHash64A(data: Uint8Array, seed: number): [number, number] {
  const M_HIGH = 0xc6a4a793;
  const M_LOW = 0x5bd1e995;
  const length = data.length;
  // h = seed ^ (len * m)
  let [hHigh, hLow] = multiply(0, length, M_HIGH, M_LOW);
  hLow = (hLow ^ seed) >>> 0;
  const blocksEnd = length - (length & 7);
  for (let at = 0; at < blocksEnd; at += 8) {
    let kLow = (data[at] | (data[at + 1] << 8) | (data[at + 2] << 16) | (data[at + 3] << 24)) >>> 0;
    let kHigh =
      (data[at + 4] | (data[at + 5] << 8) | (data[at + 6] << 16) | (data[at + 7] << 24)) >>> 0;
    [kHigh, kLow] = multiply(kHigh, kLow, M_HIGH, M_LOW);
    // k ^= k >> 47: the top 17 bits of k onto its low bits.
    kLow = (kLow ^ (kHigh >>> 15)) >>> 0;
    [kHigh, kLow] = multiply(kHigh, kLow, M_HIGH, M_LOW);
    hHigh = (hHigh ^ kHigh) >>> 0;
    hLow = (hLow ^ kLow) >>> 0;
    [hHigh, hLow] = multiply(hHigh, hLow, M_HIGH, M_LOW);
  }
  const tail = length & 7;
  if (tail > 0) {
    for (let i = tail - 1; i >= 0; i--) {
      const byte = data[blocksEnd + i];
      if (i >= 4) hHigh = (hHigh ^ (byte << ((i - 4) * 8))) >>> 0;
      else hLow = (hLow ^ (byte << (i * 8))) >>> 0;
    }
    [hHigh, hLow] = multiply(hHigh, hLow, M_HIGH, M_LOW);
  }
  hLow = (hLow ^ (hHigh >>> 15)) >>> 0;
  [hHigh, hLow] = multiply(hHigh, hLow, M_HIGH, M_LOW);
  hLow = (hLow ^ (hHigh >>> 15)) >>> 0;
  return [hHigh, hLow];
}

/** (aHigh:aLow × bHigh:bLow) mod 2^64, as unsigned 32-bit halves [high, low]. */
function multiply(aHigh: number, aLow: number, bHigh: number, bLow: number): [number, number] {
  const a0 = aLow & 0xffff;
  const a1 = aLow >>> 16;
  const b0 = bLow & 0xffff;
  const b1 = bLow >>> 16;
  const middle = a0 * b1 + a1 * b0; // < 2^33
  const low = a0 * b0 + (middle % 0x10000) * 0x10000; // < 2^33
  const high =
    a1 * b1 +
    Math.floor(middle / 0x10000) +
    Math.floor(low / 0x100000000) +
    Math.imul(aHigh, bLow) +
    Math.imul(aLow, bHigh);
  return [high >>> 0, low >>> 0];
}

/** Raises the register an element falls into (PFADD); true when it changed. */
export function addToRegisters(registers: Uint8Array, element: string | Uint8Array): boolean {
  const { index, count } = patternOf(element);
  if (count <= registers[index]) return false;
  registers[index] = count;
  return true;
}

/** Thrown for bytes that are not a HyperLogLog Redis would accept (INVALIDOBJ, WRONGTYPE). */
export class InvalidHyperLogLogError extends Error {}

/**
 * Merges a serialised HyperLogLog (Redis's string value, dense or sparse) into raw registers,
 * each the maximum of both (hllMerge). Refuses what Redis would refuse.
 */
export function mergeSerialized(into: Uint8Array, bytes: Uint8Array): void {
  if (!isHyperLogLog(bytes)) throw new InvalidHyperLogLogError('Not a HyperLogLog value');
  if (bytes[4] === DENSE) mergeDense(into, bytes);
  else mergeSparse(into, bytes);
}

/** The header Redis checks (isHLLObjectOrReply): magic and a known encoding. */
const isHyperLogLog = (bytes: Uint8Array): boolean =>
  bytes.length >= HEADER_BYTES &&
  MAGIC.every((byte, at) => bytes[at] === byte) &&
  bytes[4] <= SPARSE;

/** Four 6-bit registers in every three bytes, least significant bits first. */
function mergeDense(into: Uint8Array, bytes: Uint8Array): void {
  if (bytes.length !== HLL_DENSE_BYTES) {
    throw new InvalidHyperLogLogError(`A dense HyperLogLog is ${HLL_DENSE_BYTES} bytes`);
  }
  for (let register = 0, at = HEADER_BYTES; register < HLL_REGISTERS; register += 4, at += 3) {
    const b0 = bytes[at];
    const b1 = bytes[at + 1];
    const b2 = bytes[at + 2];
    raise(into, register, b0 & 63);
    raise(into, register + 1, ((b0 >> 6) | (b1 << 2)) & 63);
    raise(into, register + 2, ((b1 >> 4) | (b2 << 4)) & 63);
    raise(into, register + 3, b2 >> 2);
  }
}

const raise = (into: Uint8Array, register: number, value: number): void => {
  if (value > into[register]) into[register] = value;
};

function mergeSparse(into: Uint8Array, bytes: Uint8Array): void {
  let register = 0;
  for (let at = HEADER_BYTES; at < bytes.length; at++) {
    const opcode = bytes[at];
    if ((opcode & 0xc0) === 0) {
      register += (opcode & 0x3f) + 1;
    } else if ((opcode & 0xc0) === 0x40) {
      at++;
      register += (((opcode & 0x3f) << 8) | (bytes[at] ?? 0)) + 1;
    } else {
      const value = ((opcode >> 2) & 0x1f) + 1;
      const run = (opcode & 3) + 1;
      if (register + run > HLL_REGISTERS) break;
      for (let end = register + run; register < end; register++) raise(into, register, value);
    }
  }
  if (register !== HLL_REGISTERS) {
    throw new InvalidHyperLogLogError('A sparse HyperLogLog must cover 16384 registers');
  }
}

/** The registers of one serialised HyperLogLog. */
export function parseSerialized(bytes: Uint8Array): Uint8Array {
  const registers = emptyRegisters();
  mergeSerialized(registers, bytes);
  return registers;
}

/**
 * Raw registers as Redis stores them: sparse while every register fits a VAL opcode (at
 * most 32) and the whole within Redis's 3,000 bytes, else dense. The cached cardinality is
 * marked stale (as PFADD leaves it), so PFCOUNT of the value in Redis counts afresh.
 */
export function serialize(registers: Uint8Array): Buffer {
  return serializeSparse(registers) ?? serializeDense(registers);
}

function headerOf(length: number, encoding: number): Buffer {
  const bytes = Buffer.alloc(length);
  bytes.set(MAGIC, 0);
  bytes[4] = encoding;
  bytes[15] = 0x80; // HLL_INVALIDATE_CACHE
  return bytes;
}

function serializeDense(registers: Uint8Array): Buffer {
  const bytes = headerOf(HLL_DENSE_BYTES, DENSE);
  for (let register = 0, at = HEADER_BYTES; register < HLL_REGISTERS; register += 4, at += 3) {
    const r1 = registers[register + 1];
    const r2 = registers[register + 2];
    bytes[at] = registers[register] | ((r1 & 3) << 6);
    bytes[at + 1] = (r1 >> 2) | ((r2 & 15) << 4);
    bytes[at + 2] = (r2 >> 4) | (registers[register + 3] << 2);
  }
  return bytes;
}

/** Run-length opcodes, or null when the registers need the dense form. */
function serializeSparse(registers: Uint8Array): Buffer | null {
  const opcodes: number[] = [];
  let register = 0;
  while (register < HLL_REGISTERS) {
    const value = registers[register];
    let run = 1;
    while (register + run < HLL_REGISTERS && registers[register + run] === value) run++;
    register += run;
    if (value === 0) {
      if (run <= ZERO_MAX_RUN) opcodes.push(run - 1);
      else opcodes.push(0x40 | ((run - 1) >> 8), (run - 1) & 0xff);
    } else {
      if (value > VAL_MAX_VALUE) return null;
      for (; run > 0; run -= VAL_MAX_RUN) {
        opcodes.push(0x80 | ((value - 1) << 2) | (Math.min(run, VAL_MAX_RUN) - 1));
      }
    }
    if (HEADER_BYTES + opcodes.length > SPARSE_MAX_BYTES) return null;
  }
  const bytes = headerOf(HEADER_BYTES + opcodes.length, SPARSE);
  bytes.set(opcodes, HEADER_BYTES);
  return bytes;
}

/** hllSigma (Ertl): the share of registers still 0, as the estimator weighs it. */
function sigma(x: number): number {
  if (x === 1) return Infinity;
  let zPrime: number;
  let y = 1;
  let z = x;
  do {
    x *= x;
    zPrime = z;
    z += x * y;
    y += y;
  } while (zPrime !== z);
  return z;
}

/** hllTau (Ertl): the share of registers below their maximum, as the estimator weighs it. */
function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let zPrime: number;
  let y = 1.0;
  let z = 1 - x;
  do {
    x = Math.sqrt(x);
    zPrime = z;
    y *= 0.5;
    // Redis's pow(1 - x, 2): glibc's is the correctly rounded square, as this product is.
    z -= (1 - x) * (1 - x) * y;
  } while (zPrime !== z);
  return z / 3;
}

/**
 * The estimated number of distinct elements (hllCount): from the histogram of register
 * values, in the same order of floating-point operations as Redis, so the answer is the
 * very integer PFCOUNT gives (up to 2^63, where Redis's own cast overflows: registers near
 * saturation, far past any real set).
 */
export function countOf(registers: Uint8Array): number {
  const histogram = new Int32Array(64);
  for (let register = 0; register < HLL_REGISTERS; register++) histogram[registers[register]]++;
  return countOfHistogram(histogram);
}

/**
 * countOf straight from a serialised HyperLogLog (no raw registers built): the histogram of
 * a sparse value is a walk of its opcodes.
 */
export function countSerialized(bytes: Uint8Array): number {
  if (bytes[4] === DENSE) return countOf(parseSerialized(bytes));
  const histogram = new Int32Array(64);
  let register = 0;
  for (let at = HEADER_BYTES; at < bytes.length; at++) {
    const opcode = bytes[at];
    if ((opcode & 0xc0) === 0) {
      histogram[0] += (opcode & 0x3f) + 1;
      register += (opcode & 0x3f) + 1;
    } else if ((opcode & 0xc0) === 0x40) {
      const run = (((opcode & 0x3f) << 8) | (bytes[++at] ?? 0)) + 1;
      histogram[0] += run;
      register += run;
    } else {
      histogram[((opcode >> 2) & 0x1f) + 1] += (opcode & 3) + 1;
      register += (opcode & 3) + 1;
    }
  }
  if (register !== HLL_REGISTERS || !isHyperLogLog(bytes)) {
    throw new InvalidHyperLogLogError('Not a HyperLogLog value covering 16384 registers');
  }
  return countOfHistogram(histogram);
}

/** The estimator proper, from how many registers hold each value. */
function countOfHistogram(histogram: Int32Array): number {
  const m = HLL_REGISTERS;
  let z = m * tau((m - histogram[HLL_Q + 1]) / m);
  for (let j = HLL_Q; j >= 1; --j) {
    z += histogram[j];
    z *= 0.5;
  }
  z += m * sigma(histogram[0] / m);
  // llroundl: halves away from zero (the value is never negative).
  return Math.round((ALPHA_INF * m * m) / z);
}
