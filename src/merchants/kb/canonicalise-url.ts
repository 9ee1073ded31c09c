import { findRegionByHostname, normalizeHostname } from './merchant-host-index';
import type {
  CanonicalisationRules,
  MerchantProfile,
  PathRule,
  RedundantParamRule,
} from './merchant-profile';

export interface CanonicalisedUrl {
  canonicalUrl: string;
  /** Region key owning the input hostname; null when the hostname is not in the profile. */
  region: string | null;
}

/**
 * Canonical form of a merchant URL: `https://<storefront of the owning region><path>[?kept params]`.
 * The path is percent-decoded and stripped of trailing slashes, rewritten by the first matching
 * path rule (or kept) and re-encoded by `URL`. The query keeps, in their original order and
 * serialised by `URLSearchParams`, the params the page's own list allows (the `keepParams` of the
 * path rule the canonical path matches, else the profile's keepParams/dropParams), minus those a
 * redundant-param rule finds restating the page (a default value, or the id already in the path).
 * The fragment, port and credentials are dropped.
 * A hostname the profile does not list is kept (lowercase) and `region` is null.
 * Throws a TypeError for an unparsable URL or a scheme other than http(s).
 */
// A link's URL is canonicalised on every routing decision; the answer never changes for one
// profile version and one URL, so recent answers are kept (bounded; oldest dropped first).
const MEMO_LIMIT = 50_000;
const memo = new Map<string, CanonicalisedUrl>();

export function canonicaliseUrl(profile: MerchantProfile, url: URL | string): CanonicalisedUrl {
  if (typeof url !== 'string') return canonicaliseUncached(profile, url);
  const key = `${profile.merchantId}|${profile.meta.version}|${url}`;
  const known = memo.get(key);
  if (known !== undefined) return { ...known };
  const result = canonicaliseUncached(profile, url);
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value as string);
  memo.set(key, result);
  return { ...result };
}

function canonicaliseUncached(profile: MerchantProfile, url: URL | string): CanonicalisedUrl {
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
  output.search = filterQuery(
    profile.canonicalization,
    // The query is judged against the canonical path, which a second pass sees unchanged: the
    // same rule, the same groups, so the kept params are the same (idempotence).
    matchPathRules(profile.canonicalization.pathRules, decodePath(output.pathname)),
    input.searchParams,
  ).toString();
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

interface PathRuleMatch {
  rule: PathRule;
  /** Named groups that took part in the match. */
  groups: Readonly<Record<string, string>>;
}

/** The first rule matching the decoded path (without its trailing slash), or null. */
function matchPathRules(rules: readonly PathRule[], decodedPath: string): PathRuleMatch | null {
  const path = trimTrailingSlashes(decodedPath);
  for (const rule of rules) {
    const match = compilePathRule(rule).exec(path);
    if (match !== null) {
      const groups: Record<string, string> = {};
      for (const [name, value] of Object.entries(match.groups ?? {})) {
        if (value !== undefined) groups[name] = value;
      }
      return { rule, groups };
    }
  }
  return null;
}

function rewritePath(rules: readonly PathRule[], decodedPath: string): string {
  // Rules see the path without its trailing slash, as a second pass would.
  const path = trimTrailingSlashes(decodedPath);
  const match = matchPathRules(rules, path);
  if (match === null) return path;
  const rewritten = match.rule.canonicalPath.replace(
    /\$<([A-Za-z_$][\w$]*)>/g,
    (_token, name: string) => match.groups[name] ?? '',
  );
  return trimTrailingSlashes(rewritten.startsWith('/') ? rewritten : `/${rewritten}`);
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

function filterQuery(
  rules: CanonicalisationRules,
  page: PathRuleMatch | null,
  params: URLSearchParams,
): URLSearchParams {
  const pageKeepParams = page?.rule.keepParams;
  const isAllowed =
    pageKeepParams !== undefined
      ? (name: string) => matchesParamPattern(name, pageKeepParams)
      : rules.keepParams === null
        ? (name: string) => !matchesParamPattern(name, rules.dropParams)
        : (name: string) => matchesParamPattern(name, rules.keepParams ?? []);
  const redundant = rules.redundantParams ?? [];
  const kept = new URLSearchParams();
  for (const [name, value] of params) {
    if (isAllowed(name) && !redundant.some((rule) => isRedundant(rule, page, name, value))) {
      kept.append(name, value);
    }
  }
  return kept;
}

// A param that restates the page: its default value, or the id the canonical path already names.
function isRedundant(
  rule: RedundantParamRule,
  page: PathRuleMatch | null,
  name: string,
  value: string,
): boolean {
  if (name.toLowerCase() !== rule.param.toLowerCase()) return false;
  if (rule.defaultValues?.includes(value) === true) return true;
  if (rule.sameAsPathGroup === undefined) return false;
  const named = page?.groups[rule.sameAsPathGroup];
  return named !== undefined && named === value;
}

/**
 * True when a param name matches one of the patterns (names, or prefixes ending in `*`).
 * Names compare case-insensitively: tracking params arrive as `UTM_Source` too.
 */
export function matchesParamPattern(name: string, patterns: readonly string[]): boolean {
  const lower = name.toLowerCase();
  return patterns.some((pattern) => {
    const lowerPattern = pattern.toLowerCase();
    return lowerPattern.endsWith('*')
      ? lower.startsWith(lowerPattern.slice(0, -1))
      : lower === lowerPattern;
  });
}
