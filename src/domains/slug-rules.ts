/**
 * Vanity slugs: the path of a link on a branded domain (`https://<domain>/<slug>`). Taken in
 * any case and stored lowercased, so `/Sale` and `/sale` are one link.
 */
export const SLUG_PATTERN = /^[a-z0-9-]{1,64}$/;

/**
 * First path segments the service answers itself on every host (the API, the edge, the docs,
 * the probes and the metrics), or that browsers and crawlers ask every site for: a slug
 * spelled like one would never be reached. The one list, read by validation and the edge.
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'r',
  'v1',
  'api',
  'docs',
  'docs-json',
  'docs-yaml',
  'internal',
  'health',
  'livez',
  'readyz',
  'metrics',
  'postbacks',
  'favicon.ico',
  'robots.txt',
  '.well-known',
]);

/** Why a slug is refused, or null when `slug` (already lowercased) is a usable one. */
export function slugProblemOf(slug: string): string | null {
  if (!SLUG_PATTERN.test(slug)) {
    return 'must be 1 to 64 characters of letters a-z, digits and hyphens';
  }
  if (RESERVED_SLUGS.has(slug)) return `is reserved (${slug} is a path the service answers)`;
  return null;
}

/** The stored spelling of a slug: lowercase (ASCII only: other letters fail the pattern). */
export const normaliseSlug = (slug: string): string =>
  slug.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
