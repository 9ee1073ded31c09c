/**
 * A readable title from a product URL's slug, for links created without one: never a network
 * fetch on the request path. `/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12` gives
 * "Apple AirPods Pro 2nd Generation". Falls back to "<merchant or host> product". Control
 * characters a slug decodes to (`%00`, `%0A`) become spaces: a title is text, and PostgreSQL
 * refuses NUL in it.
 */
export function titleFromUrl(url: string, merchantName: string | null): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Untitled link';
  }
  const words = parsed.pathname
    .split('/')
    .map(decodeSegment)
    .map((segment) => segment.replace(/\.(html?|php|aspx?)$/i, ''))
    .filter(isSlug)
    .sort((a, b) => b.length - a.length)[0];
  if (words !== undefined) {
    const title = words
      .replace(/[-_+]+|\p{Cc}+/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return (title.charAt(0).toUpperCase() + title.slice(1)).slice(0, 300);
  }
  return `${merchantName ?? parsed.hostname.replace(/^www\./, '')} product`.slice(0, 300);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A slug has at least two words of letters; ids (`B0BDHWDR12`, `12345`, `dp`) do not. */
function isSlug(segment: string): boolean {
  const words = segment.split(/[-_+\s]+/).filter((word) => /\p{L}{2,}/u.test(word));
  return words.length >= 2;
}
