/**
 * What may never reach a log line: an API key, an Authorization header's credentials, the
 * query of a full URL (it can carry visitors' identifiers and affiliate ids) and a client's
 * address. Structured fields with such names are replaced whole (LOG_REDACTED_PATHS, by
 * pino); free text (messages, error messages) is scrubbed by scrubLogText.
 */
export const REDACTED = '[redacted]';

/** Field paths pino replaces with REDACTED wherever they appear (one level deep too). */
export const LOG_REDACTED_PATHS = [
  'apiKey',
  'authorization',
  'ip',
  'clientIp',
  'remoteAddress',
  'headers.authorization',
  'headers["x-forwarded-for"]',
  '*.apiKey',
  '*.authorization',
  '*.ip',
  '*.clientIp',
  '*.remoteAddress',
  '*.headers.authorization',
  '*.headers["x-forwarded-for"]',
];

const API_KEY = /\blp_(live|test)_sk_[A-Za-z0-9_-]+/g;
const BEARER = /\b(Bearer|Basic)\s+[^\s"',;]+/gi;
// A URL's query (and fragment) up to the next blank or quote; the scheme, host and path stay.
const URL_QUERY = /(\bhttps?:\/\/[^\s"'?#<>]*)[?#][^\s"'<>]*/gi;
const IPV4 = /(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])/g;
// IPv6 with a `::` or all eight groups; times such as 02:10:15 have neither.
const IPV6 = /(?<![\w:])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\w:])/gi;

/** Free text with keys, credentials, URL queries and addresses taken out. */
export function scrubLogText(text: string): string {
  return text
    .replace(API_KEY, `lp_$1_sk_${REDACTED}`)
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(URL_QUERY, `$1?${REDACTED}`)
    .replace(IPV4, REDACTED)
    .replace(IPV6, (match) => (isIpv6Like(match) ? REDACTED : match));
}

function isIpv6Like(text: string): boolean {
  return text.includes('::') || text.split(':').length === 8;
}
