// The click list's cursor: an opaque keyset position. Plain data in and out.

/** Where the next page starts (after this click) and how many clicks came before it. */
export interface ClickCursor {
  clickedAtMs: number;
  recordId: string;
  /** Clicks listed before the next page: tells the page number, never used to skip rows. */
  offset: number;
}

const DECODED_PATTERN = /^(\d{1,15})\.([0-9A-Za-z]{1,26})\.(\d{1,10})$/;
const BASE64URL_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

/** The cursor as the client sees it: base64url, no meaning promised beyond this release. */
export function encodeClickCursor({ clickedAtMs, recordId, offset }: ClickCursor): string {
  return Buffer.from(`${clickedAtMs}.${recordId}.${offset}`, 'utf8').toString('base64url');
}

/** The cursor's position, or null when the text is not one this API gave out. */
export function decodeClickCursor(text: string): ClickCursor | null {
  if (!BASE64URL_PATTERN.test(text)) return null;
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  const match = DECODED_PATTERN.exec(decoded);
  if (match === null) return null;
  // Canonical form only: a text that decodes to the same bytes but is spelled otherwise is
  // not a cursor we gave out.
  if (Buffer.from(decoded, 'utf8').toString('base64url') !== text) return null;
  const clickedAtMs = Number(match[1]);
  if (Number.isNaN(new Date(clickedAtMs).getTime())) return null;
  return { clickedAtMs, recordId: match[2], offset: Number(match[3]) };
}
