/** The 23 currencies the knowledge base prices EPC hints in (SPEC, FX rates). */
export const SUPPORTED_CURRENCIES = [
  'USD',
  'GBP',
  'EUR',
  'INR',
  'CAD',
  'AUD',
  'JPY',
  'SGD',
  'MYR',
  'THB',
  'IDR',
  'PHP',
  'AED',
  'SAR',
  'EGP',
  'NGN',
  'ZAR',
  'BRL',
  'MXN',
  'ARS',
  'KRW',
  'TWD',
  'VND',
] as const;

export type CurrencyCode = (typeof SUPPORTED_CURRENCIES)[number];

export type FxSource = 'primary' | 'fallback' | 'snapshot';

/**
 * One set of rates as the engine consumes it: units of each currency per 1 USD, the moment
 * they were valid, and whether they are stale at decision time (a -0.02 confidence penalty).
 */
export interface FxSnapshot {
  base: 'USD';
  rates: Record<CurrencyCode, number>;
  /** When the upstream says the rates were valid, ISO 8601. */
  timestamp: string;
  source: FxSource;
  isStale: boolean;
}

/** Units of each supported currency per 1 USD (USD itself is always 1). */
export type FxRates = Record<CurrencyCode, number>;
