/** The monthly click-quota period (UTC calendar month, reset on the 1st) containing a moment. */
export interface BillingPeriod {
  /** `YYYY-MM`, the suffix of the period's quota counter key. */
  id: string;
  /** First day, `YYYY-MM-DD`. */
  start: string;
  /** Last day, `YYYY-MM-DD`. */
  end: string;
}

/** The period of the last day asked about: every click asks, and a period lasts a month. */
let memoDayNumber = NaN;
let memoPeriod: BillingPeriod = { id: '', start: '', end: '' };

export function billingPeriodOf(nowMs: number): BillingPeriod {
  const dayNumber = Math.floor(nowMs / 86_400_000);
  if (memoDayNumber !== dayNumber) {
    memoPeriod = Object.freeze(computeBillingPeriod(nowMs));
    memoDayNumber = dayNumber;
  }
  return memoPeriod;
}

function computeBillingPeriod(nowMs: number): BillingPeriod {
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const id = `${year}-${String(month + 1).padStart(2, '0')}`;
  return { id, start: `${id}-01`, end: `${id}-${String(lastDay).padStart(2, '0')}` };
}
