/**
 * How a visitor reached a link: `qr` for a scan of the link's QR code (its URL carries the
 * `qr=1` marker), `link` for everything else. A small closed set, stored per click, so that
 * more sources can be added later without touching old rows.
 */
export const CLICK_SOURCES = ['link', 'qr'] as const;
export type ClickSource = (typeof CLICK_SOURCES)[number];

/** The query parameter a QR code's URL carries: `qr=1`. */
export const QR_MARKER_NAME = 'qr';
const QR_MARKER = `${QR_MARKER_NAME}=1`;

/**
 * Whether a visitor's raw query string (without `?`) carries the QR marker as one of its
 * `&`-separated pairs, byte for byte as the QR code's URL writes it. No parsing: the redirect
 * calls this for every click with a query.
 */
export function hasQrMarker(query: string): boolean {
  if (query === QR_MARKER) return true;
  if (!query.includes(QR_MARKER)) return false;
  return (
    query.startsWith(`${QR_MARKER}&`) ||
    query.endsWith(`&${QR_MARKER}`) ||
    query.includes(`&${QR_MARKER}&`)
  );
}

/**
 * A link's URL as its QR code encodes it: `qr=1` appended to its query (a URL of a branded
 * domain or of the redirect host alike), so the edge counts the scan as source `qr`.
 */
export function withQrMarker(linkUrl: string): string {
  const url = new URL(linkUrl);
  url.searchParams.set(QR_MARKER_NAME, '1');
  return url.href;
}

/** The click's source from its query string: `qr` when it carries the marker. */
export const clickSourceOf = (query: string): ClickSource =>
  query !== '' && hasQrMarker(query) ? 'qr' : 'link';
