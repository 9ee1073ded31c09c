import recorded from '../../../test/fixtures/fx/open-er-api-latest-usd.json';
import recordedError from '../../../test/fixtures/fx/open-er-api-error.json';
import { SUPPORTED_CURRENCIES } from './fx-snapshot';
import { parseOpenErApiPayload } from './open-er-api-payload';

const withChanges = (changes: Record<string, unknown>): Record<string, unknown> => ({
  ...recorded,
  ...changes,
});
const withRates = (changes: Record<string, unknown>): Record<string, unknown> =>
  withChanges({ rates: { ...recorded.rates, ...changes } });

describe(parseOpenErApiPayload.name, () => {
  it('should read the 23 supported currencies and the update time when given a recorded payload', () => {
    const parsed = parseOpenErApiPayload(recorded);

    expect(parsed).toEqual({
      ok: true,
      validAt: '2026-11-21T00:02:31.000Z',
      rates: expect.objectContaining({ USD: 1, EUR: 0.8647, INR: 88.64, VND: 26348 }),
    });
    expect(parsed.ok && Object.keys(parsed.rates).sort()).toEqual([...SUPPORTED_CURRENCIES].sort());
  });

  it('should leave out a currency the payload does not list when the rest are fine', () => {
    const { NGN: _ngn, ...rates } = recorded.rates;

    const parsed = parseOpenErApiPayload(withChanges({ rates }));

    expect(parsed.ok).toBe(true);
    expect(parsed.ok && parsed.rates.NGN).toBeUndefined();
  });

  it.each<[string, unknown, RegExp]>([
    ['the body is not an object', [recorded], /not a JSON object/],
    ['the body is null', null, /not a JSON object/],
    ['the body is a string', 'success', /not a JSON object/],
    ['the upstream answered an error', recordedError, /result is "error" \("unsupported-code"\)/],
    ['result is missing', withChanges({ result: undefined }), /result is missing/],
    ['the base is EUR', withChanges({ base_code: 'EUR' }), /base is "EUR", expected "USD"/],
    ['the base is lowercase', withChanges({ base_code: 'usd' }), /base is "usd"/],
    ['the base is missing', withChanges({ base_code: undefined }), /base is missing/],
    [
      'the timestamp is missing',
      withChanges({ time_last_update_unix: undefined }),
      /time_last_update_unix is missing/,
    ],
    [
      'the timestamp is a string',
      withChanges({ time_last_update_unix: '1795219351' }),
      /time_last_update_unix is "1795219351"/,
    ],
    ['the timestamp is 0', withChanges({ time_last_update_unix: 0 }), /time_last_update_unix/],
    ['the timestamp is fractional', withChanges({ time_last_update_unix: 1.5 }), /Unix time/],
    ['the timestamp is beyond any date', withChanges({ time_last_update_unix: 1e15 }), /Unix/],
    ['rates is missing', withChanges({ rates: undefined }), /rates is missing/],
    ['rates is an array', withChanges({ rates: [1, 2] }), /rates is missing or not an object/],
    ['a rate is 0', withRates({ INR: 0 }), /rate of INR is 0, not a positive number/],
    ['a rate is negative', withRates({ EUR: -0.86 }), /rate of EUR is -0.86/],
    ['a rate is a string', withRates({ JPY: '156.8' }), /rate of JPY is "156.8"/],
    ['a rate is null (JSON for NaN/Infinity)', withRates({ KRW: null }), /rate of KRW is null/],
    ['a rate is Infinity', withRates({ KRW: Number.POSITIVE_INFINITY }), /rate of KRW/],
    ['USD is not 1', withRates({ USD: 1.01 }), /rate of USD is 1.01, expected 1/],
    ['none of our currencies is listed', withChanges({ rates: { USD: 1, CHF: 0.8 } }), /none/],
  ])('should refuse the payload with a reason when %s', (_case, body, reason) => {
    const parsed = parseOpenErApiPayload(body);

    expect(parsed).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('should ignore a bad rate of a currency we do not use', () => {
    expect(parseOpenErApiPayload(withRates({ CHF: -1 })).ok).toBe(true);
  });
});
