import type { ConversionStatus } from './conversion.entity';

/** What one recorded status of an order adds to the earnings figures (USD). */
export interface ConversionEffect {
  conversions: number;
  approvedUsd: number;
  pendingUsd: number;
}

/** An order's status already recorded, with the commission it counted. */
export interface RecordedStatus {
  status: ConversionStatus;
  commissionUsd: number;
}

const NONE: ConversionEffect = { conversions: 0, approvedUsd: 0, pendingUsd: 0 };

/**
 * The effect of a new status of an order, given the statuses it already has (each status is
 * recorded at most once: the idempotency key). An order counts as one conversion while it
 * stands, in the bucket of its latest standing status:
 *
 * - `pending` adds the conversion and its commission as pending, unless the order was
 *   already approved or reversed (a late pending changes nothing);
 * - `approved` adds its commission as approved and takes the pending commission out; the
 *   conversion is added only if the order was not pending already; after a reversal nothing;
 * - `reversed` takes out what the order counts (its approved commission, else its pending
 *   one) and the conversion. A reversal of an order never seen changes nothing, and an order
 *   reversed stays reversed.
 *
 * So an order's rows always add up to its standing state, in whatever order they arrive.
 */
export function effectOf(
  status: ConversionStatus,
  commissionUsd: number,
  recorded: readonly RecordedStatus[],
): ConversionEffect {
  const find = (wanted: ConversionStatus) => recorded.find((row) => row.status === wanted);
  const pending = find('pending');
  const approved = find('approved');
  if (find('reversed') !== undefined) return NONE;
  switch (status) {
    case 'pending':
      return approved === undefined
        ? { conversions: 1, approvedUsd: 0, pendingUsd: commissionUsd }
        : NONE;
    case 'approved':
      return {
        conversions: pending === undefined ? 1 : 0,
        approvedUsd: commissionUsd,
        pendingUsd: pending === undefined ? 0 : -pending.commissionUsd,
      };
    case 'reversed':
      if (approved !== undefined) {
        return { conversions: -1, approvedUsd: -approved.commissionUsd, pendingUsd: 0 };
      }
      if (pending !== undefined) {
        return { conversions: -1, approvedUsd: 0, pendingUsd: -pending.commissionUsd };
      }
      return NONE;
  }
}
