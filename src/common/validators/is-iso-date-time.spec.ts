import { isIsoDateTime } from './is-iso-date-time';

describe(isIsoDateTime.name, () => {
  it.each([
    ['a date', '2026-03-01', true],
    ['a UTC date-time', '2026-03-01T10:20:30Z', true],
    ['milliseconds and an offset', '2026-03-01T10:20:30.123+05:30', true],
    ['the basic form', '20260301', false],
    ['a day that does not exist', '2026-02-30', false],
    ['a month that does not exist', '2026-13-01', false],
    ['a five-digit year', '+20260-03-01', false],
    ['free text', 'yesterday', false],
    ['a number', 20260301, false],
  ])('should judge %s', (_name, value, expected) => {
    expect(isIsoDateTime(value)).toBe(expected);
  });
});
