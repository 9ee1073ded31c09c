import fc from 'fast-check';
import { restAfterPrimaryWork } from './primary-share';

describe('restAfterPrimaryWork', () => {
  it('rests as long as the read took at a share of 50%, three times as long at 25%', () => {
    expect(restAfterPrimaryWork(120, 50)).toBe(120);
    expect(restAfterPrimaryWork(120, 25)).toBe(360);
  });

  it('never rests at 100%, nor after a read that took no time', () => {
    expect(restAfterPrimaryWork(5_000, 100)).toBe(0);
    expect(restAfterPrimaryWork(0, 10)).toBe(0);
    expect(restAfterPrimaryWork(Number.NaN, 10)).toBe(0);
  });

  it('keeps any run of reads, each followed by its rest, at the share', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 60_000, noNaN: true }), { minLength: 1 }),
        fc.integer({ min: 1, max: 100 }),
        (reads, share) => {
          const busy = reads.reduce((sum, ms) => sum + ms, 0);
          const rested = reads.reduce((sum, ms) => sum + restAfterPrimaryWork(ms, share), 0);
          expect((100 * busy) / (busy + rested)).toBeCloseTo(share, 6);
        },
      ),
    );
  });
});
