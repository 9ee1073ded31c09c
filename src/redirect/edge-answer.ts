import { ErrorBody, UNEXPECTED_ERROR_MESSAGE } from '../common/errors/all-exceptions.filter';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../common/errors/database-unavailable';
import { ErrorCode } from '../common/errors/error-code';

/** What GET /r/:linkId answers, before it is written to Fastify's reply or to node:http's. */
export type EdgeAnswer =
  /** 302 to `location`: the routed URL, or the original one for bots, quota and passthrough. */
  | { kind: 'redirect'; location: string }
  /** 429 over an edge limit: the original URL in Location and in a small page with a link. */
  | { kind: 'too_many_requests'; location: string; retryAfterSeconds: number }
  | { kind: 'not_found' }
  /** 410: the link has expired or reached its click cap, and has no expired URL. */
  | { kind: 'gone' }
  /**
   * 503 with Retry-After: the click needed PostgreSQL (a link or creator not yet cached) and
   * it refused or did not answer in time.
   */
  | { kind: 'database_unavailable' }
  /** The answer to an unexpected error, in the envelope (never Fastify's own error shape). */
  | { kind: 'internal_error' };

export interface RenderedEdgeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const NO_STORE = 'private, no-store';

const GONE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Link expired</title><p>This link has expired.</p>';

/**
 * Retry-After of the edge's 503: shorter than the API's (DATABASE_RETRY_AFTER_SECONDS), as
 * a visitor is waiting and a cold link needs one statement once PostgreSQL is back.
 */
export const EDGE_RETRY_AFTER_SECONDS = 2;

/** What a Location header may carry as it is: printable ASCII, no space. */
const HEADER_SAFE = /^[\x21-\x7e]*$/;

/**
 * Stored URLs are kept in their WHATWG serialisation, which is always header-safe; this is
 * the last line of defence for a record cached before that rule (or any future slip): a
 * location node:http would refuse is re-serialised, or percent-encoded where it cannot parse.
 * One regular-expression test per redirect.
 */
export function toHeaderSafeLocation(location: string): string {
  if (HEADER_SAFE.test(location)) return location;
  try {
    const href = new URL(location).href;
    if (HEADER_SAFE.test(href)) return href;
  } catch {
    // Not a URL at all: fall through to percent-encoding.
  }
  return location.replace(/[^\x21-\x7e]/gu, percentEncodeUtf8);
}

/** %XX per UTF-8 byte (a lone surrogate becomes U+FFFD's bytes, as the URL parser does). */
const percentEncodeUtf8 = (char: string): string =>
  [...Buffer.from(char, 'utf8')]
    .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
    .join('');

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Status, headers and body of an answer; the same bytes whichever server writes them. */
export function renderEdgeAnswer(answer: EdgeAnswer, requestId: string): RenderedEdgeAnswer {
  switch (answer.kind) {
    case 'redirect':
      return {
        status: 302,
        headers: { location: toHeaderSafeLocation(answer.location), 'cache-control': NO_STORE },
        body: '',
      };
    case 'too_many_requests': {
      // Browsers do not follow Location on a 429, so the body carries the link too.
      const location = toHeaderSafeLocation(answer.location);
      const href = escapeHtml(location);
      return {
        status: 429,
        headers: {
          location,
          'cache-control': NO_STORE,
          'retry-after': String(answer.retryAfterSeconds),
          'content-type': 'text/html; charset=utf-8',
        },
        body: `<!doctype html><meta charset="utf-8"><title>Continue to the store</title><p>Too many requests right now. <a href="${href}">Continue to the store</a>.</p>`,
      };
    }
    case 'not_found':
      return errorAnswer(404, ErrorCode.LINK_NOT_FOUND, 'No such link.', requestId);
    case 'gone':
      // A visitor's browser shows it: a page, not the API's envelope.
      return {
        status: 410,
        headers: { 'cache-control': NO_STORE, 'content-type': 'text/html; charset=utf-8' },
        body: GONE_PAGE,
      };
    case 'database_unavailable': {
      const rendered = errorAnswer(
        503,
        ErrorCode.DATABASE_UNAVAILABLE,
        DATABASE_UNAVAILABLE_MESSAGE,
        requestId,
      );
      rendered.headers['retry-after'] = String(EDGE_RETRY_AFTER_SECONDS);
      return rendered;
    }
    case 'internal_error':
      return errorAnswer(500, ErrorCode.INTERNAL_ERROR, UNEXPECTED_ERROR_MESSAGE, requestId);
  }
}

function errorAnswer(
  status: number,
  code: ErrorCode,
  message: string,
  requestId: string,
): RenderedEdgeAnswer {
  const body: ErrorBody = { success: false, error: { code, message, requestId } };
  return {
    status,
    headers: { 'cache-control': NO_STORE, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  };
}
