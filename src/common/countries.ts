import { getName } from 'country-list';

/**
 * IsoAlpha2 [S]: exactly two upper-case letters naming an assigned ISO 3166-1 country
 * (`UK` and `EU` are not; `GB` is).
 */
export function isSupportedCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && getName(code) !== undefined;
}

export const UNSUPPORTED_COUNTRY_MESSAGE =
  'must be an ISO 3166-1 alpha-2 country code in upper case, e.g. US, GB, IN';
