import type { RedisStringStructure } from '../kv/kv-script';
import { emptyRegisters, patternOf, serialize } from './hyperloglog';

/**
 * Registers kept in a Map up to this many (a few dozen bytes each), then as the 16 KB raw
 * array: a link-day's sketch of a handful of visitors stays small in memory, as Redis keeps it
 * small (sparse) too.
 */
const FEW_REGISTERS = 512;

/**
 * The in-process store's twin of a unique-visitor HyperLogLog key: the registers PFADD
 * would set, with the same hash (hyperloglog.ts), so both stores hold the very same sketch
 * for the same visitors, count it alike and hand the same registers to PostgreSQL. Read as
 * bytes (the move to PostgreSQL, the reads), it is Redis's own serialisation of them.
 */
export class VisitorSketch implements RedisStringStructure {
  /** Register index -> value, while few are set; null once `registers` holds them all. */
  private few: Map<number, number> | null = new Map();
  private registers: Uint8Array | null = null;

  /** PFADD of one element: true when a register rose (Redis answers 1). */
  add(element: string): boolean {
    const { index, count } = patternOf(element);
    if (this.registers !== null) {
      if (count <= this.registers[index]) return false;
      this.registers[index] = count;
      return true;
    }
    const few = this.few as Map<number, number>;
    if (count <= (few.get(index) ?? 0)) return false;
    few.set(index, count);
    if (few.size > FEW_REGISTERS) {
      this.registers = this.rawRegisters();
      this.few = null;
    }
    return true;
  }

  toRedisBytes(): Uint8Array {
    return serialize(this.rawRegisters());
  }

  private rawRegisters(): Uint8Array {
    if (this.registers !== null) return this.registers;
    const registers = emptyRegisters();
    for (const [index, count] of this.few ?? []) registers[index] = count;
    return registers;
  }
}
