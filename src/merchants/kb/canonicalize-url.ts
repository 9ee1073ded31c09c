import { findRegionByHostname, normalizeHostname } from './merchant-host-index';
import type { CanonicalizationRules, MerchantProfile, PathRule } from './merchant-profile';

export interface CanonicalizedUrl {
  canonicalUrl: string;
  /** Region key owning the input hostname; null when the hostname is not in the profile. */
  region: string | null;
}

/**
 * Canonical form of a merchant URL: `https://<storefront of the owning region><path>[?kept params]`.
 * The path is percent-decoded and stripped of trailing slashes, rewritten by the first matching
 * path rule (or kept) and re-encoded by `URL`; the query keeps only the allowed params, in their
 * original order, serialised by `URLSearchParams`; the fragment, port and credentials are dropped.
 * A hostname the profile does not list is kept (lowercase) and `region` is null.
 * Throws a TypeError for an unparsable URL or a scheme other than http(s).
 */
// A link's URL is canonicalised on every routing decision; the answer never changes for one
// profile version and one URL, so recent answers are kept (bounded; oldest dropped first).
const MEMO_LIMIT = 50_000;
const memo = new Map<string, CanonicalizedUrl>();

export function canonicalizeUrl(profile: MerchantProfile, url: URL | string): CanonicalizedUrl {
  if (typeof url !== 'string') return canonicalizeUncached(profile, url);
  const key = `${profile.merchantId}|${profile.meta.version}|${url}`;
  const known = memo.get(key);
  if (known !== undefined) return { ...known };
  const result = canonicalizeUncached(profile, url);
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value as string);
  memo.set(key, result);
  return { ...result };
}

function canonicalizeUncached(profile: MerchantProfile, url: URL | string): CanonicalizedUrl {
  const input = typeof url === 'string' ? new URL(url) : url;
  if (input.protocol !== 'https:' && input.protocol !== 'http:') {
    throw new TypeError(`Only http(s) URLs can be canonicalised, got ${input.protocol}`);
  }
  const hostname = normalizeHostname(input.hostname);
  const region = findRegionByHostname(profile, hostname);
  const host = region === null ? hostname : profile.regions[region].storefront;

  const output = new URL(`https://${host}`);
  // Let URL normalise the decoded path first (`\` to `/`, dot segments revealed by decoding),
  // so the rules see the same path a second pass would see.
  output.pathname = escapePercent(decodePath(input.pathname));
  output.pathname = escapePercent(
    rewritePath(profile.canonicalization.pathRules, decodePath(output.pathname)),
  );
  if (output.pathname !== '/' && output.pathname.endsWith('/')) {
    output.pathname = trimTrailingSlashes(output.pathname);
  }
  output.search = filterQuery(profile.canonicalization, input.searchParams).toString();
  return { canonicalUrl: output.href, region };
}

const compiledRules = new WeakMap<PathRule, RegExp>();

/** The rule's RegExp, compiled once; throws SyntaxError for an invalid source or flags. */
export function compilePathRule(rule: PathRule): RegExp {
  let compiled = compiledRules.get(rule);
  if (compiled === undefined) {
    compiled = new RegExp(rule.match, rule.flags ?? '');
    compiledRules.set(rule, compiled);
  }
  return compiled;
}

/** Names of the `$<name>` groups a canonicalPath template uses. */
export function templateGroupNames(canonicalPath: string): string[] {
  return [...canonicalPath.matchAll(/\$<([A-Za-z_$][\w$]*)>/g)].map((match) => match[1]);
}

function rewritePath(rules: readonly PathRule[], decodedPath: string): string {
  // Rules see the path without its trailing slash, as a second pass would.
  const path = trimTrailingSlashes(decodedPath);
  for (const rule of rules) {
    const match = compilePathRule(rule).exec(path);
    if (match !== null) {
      const rewritten = rule.canonicalPath.replace(
        /\$<([A-Za-z_$][\w$]*)>/g,
        (_token, name: string) => match.groups?.[name] ?? '',
      );
      return trimTrailingSlashes(rewritten.startsWith('/') ? rewritten : `/${rewritten}`);
    }
  }
  return path;
}

function trimTrailingSlashes(path: string): string {
  return path.replace(/\/+$/, '') || '/';
}

// Decodes each run of %XX escapes; a run that is not valid UTF-8 keeps its non-ASCII bytes
// escaped (they then come out as literal `%25XX`, which is stable under a second pass).
function decodePath(pathname: string): string {
  return pathname.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%[0-7][0-9A-Fa-f]/g, (escape) => decodeURIComponent(escape));
    }
  });
}

// A `%` left in a decoded path is literal; escaped, a second pass decodes it back to itself.
function escapePercent(decodedPath: string): string {
  return decodedPath.replace(/%/g, '%25');
}

function filterQuery(rules: CanonicalizationRules, params: URLSearchParams): URLSearchParams {
  const keep =
    rules.keepParams === null
      ? (name: string) => !matchesAnyParam(name, rules.dropParams)
      : (name: string) => matchesAnyParam(name, rules.keepParams ?? []);
  const kept = new URLSearchParams();
  for (const [name, value] of params) {
    if (keep(name)) {
      kept.append(name, value);
    }
  }
  return kept;
}

// Param names compare case-insensitively: tracking params arrive as `UTM_Source` too.
function matchesAnyParam(name: string, patterns: readonly string[]): boolean {
  const lower = name.toLowerCase();
  return patterns.some((pattern) => {
    const lowerPattern = pattern.toLowerCase();
    return lowerPattern.endsWith('*')
      ? lower.startsWith(lowerPattern.slice(0, -1))
      : lower === lowerPattern;
  });
}
