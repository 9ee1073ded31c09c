import fc from 'fast-check';
import { ConversionStatus } from './conversion.entity';
import { effectOf, RecordedStatus } from './conversion-effects';

describe('effectOf', () => {
  it('should count a pending order once, as pending', () => {
    expect(effectOf('pending', 4, [])).toEqual({ conversions: 1, approvedUsd: 0, pendingUsd: 4 });
  });

  it('should move the commission from pending to approved without counting the order twice', () => {
    expect(effectOf('approved', 5, [{ status: 'pending', commissionUsd: 4 }])).toEqual({
      conversions: 0,
      approvedUsd: 5,
      pendingUsd: -4,
    });
  });

  it('should subtract what a reversed order counted', () => {
    const recorded: RecordedStatus[] = [
      { status: 'pending', commissionUsd: 4 },
      { status: 'approved', commissionUsd: 5 },
    ];
    expect(effectOf('reversed', 5, recorded)).toEqual({
      conversions: -1,
      approvedUsd: -5,
      pendingUsd: 0,
    });
  });

  it('should change nothing for a reversal of an unknown order, nor after a reversal', () => {
    expect(effectOf('reversed', 5, [])).toEqual({ conversions: 0, approvedUsd: 0, pendingUsd: 0 });
    expect(effectOf('approved', 5, [{ status: 'reversed', commissionUsd: 5 }])).toEqual({
      conversions: 0,
      approvedUsd: 0,
      pendingUsd: 0,
    });
  });

  it("should leave an order's rows adding up to its standing state, whatever their order", () => {
    const statuses: ConversionStatus[] = ['pending', 'approved', 'reversed'];
    fc.assert(
      fc.property(
        fc
          .subarray(statuses, { minLength: 1 })
          .chain((chosen) => fc.shuffledSubarray(chosen, { minLength: chosen.length })),
        fc.record({
          pending: fc.integer({ min: 0, max: 1000 }),
          approved: fc.integer({ min: 0, max: 1000 }),
          reversed: fc.integer({ min: 0, max: 1000 }),
        }),
        (arrival, amounts) => {
          const recorded: RecordedStatus[] = [];
          const total = { conversions: 0, approvedUsd: 0, pendingUsd: 0 };
          for (const status of arrival) {
            const effect = effectOf(status, amounts[status], recorded);
            total.conversions += effect.conversions;
            total.approvedUsd += effect.approvedUsd;
            total.pendingUsd += effect.pendingUsd;
            recorded.push({ status, commissionUsd: amounts[status] });
          }
          const has = (status: ConversionStatus) => arrival.includes(status);
          const expected = has('reversed')
            ? { conversions: 0, approvedUsd: 0, pendingUsd: 0 }
            : has('approved')
              ? { conversions: 1, approvedUsd: amounts.approved, pendingUsd: 0 }
              : { conversions: 1, approvedUsd: 0, pendingUsd: amounts.pending };
          expect(total).toEqual(expected);
        },
      ),
    );
  });
});
