import recorded from '../../../test/fixtures/fx/currency-api-usd.json';
import { parseCurrencyApiPayload } from './currency-api-payload';
import { SUPPORTED_CURRENCIES } from './fx-snapshot';

const withChanges = (changes: Record<string, unknown>): Record<string, unknown> => ({
  ...recorded,
  ...changes,
});
const withRates = (changes: Record<string, unknown>): Record<string, unknown> =>
  withChanges({ usd: { ...recorded.usd, ...changes } });

describe(parseCurrencyApiPayload.name, () => {
  it('should read the lowercase rates into our codes, valid from 00:00 UTC of the date, when given a recorded payload', () => {
    const parsed = parseCurrencyApiPayload(recorded);

    expect(parsed).toEqual({
      ok: true,
      validAt: '2026-11-21T00:00:00.000Z',
      rates: expect.objectContaining({ USD: 1, EUR: recorded.usd.eur, AED: 3.6725 }),
    });
    expect(parsed.ok && Object.keys(parsed.rates).sort()).toEqual([...SUPPORTED_CURRENCIES].sort());
  });

  it.each<[string, unknown, RegExp]>([
    ['the body is not an object', [], /not a JSON object/],
    [
      'the date is missing',
      withChanges({ date: undefined }),
      /date is missing, expected YYYY-MM-DD/,
    ],
    ['the date is a full timestamp', withChanges({ date: '2026-11-21T00:00:00Z' }), /date is/],
    ['the date does not exist', withChanges({ date: '2026-02-30' }), /date is "2026-02-30"/],
    ['the date is a number', withChanges({ date: 20261121 }), /date is 20261121/],
    [
      'the base is EUR',
      { date: '2026-11-21', eur: { usd: 1.16 } },
      /base is "EUR", expected "USD"/,
    ],
    ['there is no rate table', { date: '2026-11-21' }, /usd rate table is missing/],
    ['the rate table is an array', withChanges({ usd: [1] }), /usd rate table is missing/],
    ['a rate is 0', withRates({ thb: 0 }), /rate of THB is 0, not a positive number/],
    ['a rate is a string', withRates({ php: '58.9' }), /rate of PHP is "58.9"/],
    ['a rate is null', withRates({ egp: null }), /rate of EGP is null/],
    ['usd is not 1', withRates({ usd: 0.99 }), /rate of USD is 0.99/],
    ['uppercase keys are used', { date: '2026-11-21', usd: { EUR: 0.86 } }, /none/],
  ])('should refuse the payload with a reason when %s', (_case, body, reason) => {
    expect(parseCurrencyApiPayload(body)).toEqual({
      ok: false,
      reason: expect.stringMatching(reason),
    });
  });

  it('should ignore crypto and other currencies we do not use, even with odd values', () => {
    expect(parseCurrencyApiPayload(withRates({ btc: 0, '1inch': 'x' })).ok).toBe(true);
  });
});
