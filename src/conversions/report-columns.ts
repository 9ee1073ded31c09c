import { conversionFromPostback } from './postback-fields';

/**
 * The column names of the networks' report exports, compared without case, spaces or
 * punctuation, and the conversion field each holds. The first column found of a field wins.
 */
const COLUMN_ALIASES: Readonly<Record<string, readonly string[]>> = {
  clickId: [
    'clickid',
    'subid',
    'subid1',
    'sid',
    'clickref',
    'pubref',
    'u1',
    'ascsubtag',
    'affsub2',
    'affextparam1',
  ],
  orderId: ['orderid', 'ordernumber', 'orderref', 'transactionid', 'actionid', 'oid'],
  status: ['status', 'actionstatus', 'commissionstatus', 'state'],
  saleAmount: ['saleamount', 'amount', 'ordervalue', 'salevalue', 'revenue'],
  commission: ['commission', 'commissionamount', 'payout', 'earnings'],
  currency: ['currency', 'currencycode'],
  occurredAt: ['occurredat', 'eventdate', 'transactiondate', 'orderdate', 'date', 'clickdate'],
};

const plainName = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A report row as a conversion item of `networkId` (validated afterwards like any other). */
export function conversionFromReportRow(
  networkId: string,
  fields: Readonly<Record<string, string>>,
  nowMs: number,
): Record<string, unknown> {
  const byPlainName = new Map<string, string>();
  for (const [name, value] of Object.entries(fields)) {
    if (!byPlainName.has(plainName(name))) byPlainName.set(plainName(name), value);
  }
  const params: Record<string, string> = {};
  for (const [field, aliases] of Object.entries(COLUMN_ALIASES)) {
    const value = aliases
      .map((alias) => byPlainName.get(alias))
      .find((found) => found !== undefined);
    if (value !== undefined) params[field] = value;
  }
  return conversionFromPostback(networkId, params, nowMs);
}
