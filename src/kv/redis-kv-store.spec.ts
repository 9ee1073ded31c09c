import * as fc from 'fast-check';
import { nextStreamId } from './redis-kv-store';

describe(nextStreamId.name, () => {
  it('should give the next sequence in the same millisecond', () => {
    expect(nextStreamId('1700000000000-0')).toBe('1700000000000-1');
    expect(nextStreamId('5-18446744073709551614')).toBe('5-18446744073709551615');
  });

  it('should give an id that sorts right after the one it was given', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 48n }),
        fc.bigInt({ min: 0n, max: 2n ** 63n }),
        (ms, seq) => {
          const [nextMs, nextSeq] = nextStreamId(`${ms}-${seq}`).split('-').map(BigInt);
          expect(nextMs).toBe(ms);
          expect(nextSeq).toBe(seq + 1n);
        },
      ),
    );
  });
});
