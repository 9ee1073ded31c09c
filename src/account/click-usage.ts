import type { RecordScope } from '../common/access/auth-context';

/**
 * Clicks a caller's environment has used this billing period, as the account reports them.
 * The clicks module answers it from its quota counters (ClicksModule provides it); the account
 * only names the question, so that account stays below clicks, which reads plans and billing
 * periods from it.
 */
export abstract class ClickUsage {
  abstract usedThisPeriod(scope: RecordScope, nowMs: number): Promise<number>;
}
