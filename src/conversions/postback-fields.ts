import type { ConversionStatus } from './conversion.entity';

/** A postback's parameters, from the query and (for POST) a JSON object body. */
export type PostbackParams = Readonly<Record<string, unknown>>;

/**
 * The status words networks send, in lower case, and what they mean here. Approved covers
 * the networks' "locked", "closed", "confirmed" and "paid"; reversed covers "declined",
 * "rejected", "cancelled", "corrected" and "reversed"; the rest are pending.
 */
const STATUS_WORDS: Readonly<Record<string, ConversionStatus>> = {
  pending: 'pending',
  new: 'pending',
  open: 'pending',
  extended: 'pending',
  approved: 'approved',
  approve: 'approved',
  confirmed: 'approved',
  locked: 'approved',
  closed: 'approved',
  paid: 'approved',
  reversed: 'reversed',
  reverse: 'reversed',
  declined: 'reversed',
  rejected: 'reversed',
  cancelled: 'reversed',
  canceled: 'reversed',
  corrected: 'reversed',
  void: 'reversed',
};

/** The first value of a parameter given once or repeated, as text. */
function textOf(params: PostbackParams, name: string): string | undefined {
  const value = params[name];
  const first = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (typeof first === 'number') return String(first);
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : undefined;
}

/** `12.50`, `12,50` or `1,234.50` as a number; anything else stays as sent, for validation. */
function amountOf(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  const plain = /^-?\d+(,\d{1,4})$/.test(text) ? text.replace(',', '.') : text.replace(/,/g, '');
  return /^-?\d+(\.\d+)?$/.test(plain) ? Number(plain) : text;
}

/** ISO 8601 (UTC without an offset); epoch seconds or milliseconds; absent: when received. */
function instantOf(text: string | undefined, nowMs: number): string {
  if (text === undefined) return new Date(nowMs).toISOString();
  if (/^\d{10}$/.test(text)) return new Date(Number(text) * 1000).toISOString();
  if (/^\d{13}$/.test(text)) return new Date(Number(text)).toISOString();
  // A space between date and time (`2026-11-20 14:03:00`, common in network reports), and
  // no offset: UTC (JavaScript would read a date-time without one as the server's local time).
  const iso = /^\d{4}-\d{2}-\d{2} \d/.test(text) ? text.replace(' ', 'T') : text;
  return /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(iso) ? `${iso}Z` : iso;
}

/**
 * A postback's parameters as a conversion item (validated afterwards like any other):
 * `clickId`, `orderId`, `status` (the networks' words, any case), `saleAmount`,
 * `commission`, `currency` (default USD) and `occurredAt` (default: when it arrived). The
 * network comes from the URL. Names are compared without case.
 */
export function conversionFromPostback(
  networkId: string,
  params: PostbackParams,
  nowMs: number,
): Record<string, unknown> {
  const lower: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) lower[name.toLowerCase()] ??= value;
  const status = textOf(lower, 'status');
  return {
    networkId,
    clickId: textOf(lower, 'clickid') ?? null,
    orderId: textOf(lower, 'orderid'),
    status: status === undefined ? 'pending' : (STATUS_WORDS[status.toLowerCase()] ?? status),
    saleAmount: amountOf(textOf(lower, 'saleamount')) ?? 0,
    commission: amountOf(textOf(lower, 'commission')),
    currency: textOf(lower, 'currency')?.toUpperCase() ?? 'USD',
    occurredAt: instantOf(textOf(lower, 'occurredat'), nowMs),
  };
}
