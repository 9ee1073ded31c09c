import { canonicaliseUrl } from './canonicalise-url';
import type { KbProblem, MerchantProfile } from './merchant-profile';

/** One merchant's corpus (`test/fixtures/canonicalisation/<merchantId>.json`). */
export interface CanonicalisationCorpus {
  merchantId: string;
  groups: CorpusGroup[];
}

/** Real-world URL forms of one product (one variant on one storefront). */
interface CorpusGroup {
  product: string;
  /** What every form gives; no other group of the merchant gives it. */
  canonicalUrl: string;
  urls: string[];
}

const RULE = 'corpus';
const FIELD = 'canonicalization';

/** True when `value` has the corpus file's shape. */
export function isCanonicalisationCorpus(value: unknown): value is CanonicalisationCorpus {
  if (typeof value !== 'object' || value === null) return false;
  const { merchantId, groups } = value as Partial<CanonicalisationCorpus>;
  return typeof merchantId === 'string' && Array.isArray(groups) && groups.every(isCorpusGroup);
}

function isCorpusGroup(value: unknown): value is CorpusGroup {
  if (typeof value !== 'object' || value === null) return false;
  const { product, canonicalUrl, urls } = value as Partial<CorpusGroup>;
  return (
    typeof product === 'string' &&
    typeof canonicalUrl === 'string' &&
    Array.isArray(urls) &&
    urls.length > 0 &&
    urls.every((url) => typeof url === 'string')
  );
}

/**
 * Runs one merchant's corpus through its profile and reports, against the profile, each group
 * its rules split (forms giving different canonical URLs, or one the corpus does not expect),
 * each URL they do not claim, and each pair of groups they merge into one canonical URL.
 * `corpusFile` names the corpus in the messages.
 */
export function checkCanonicalisationCorpus(
  profile: MerchantProfile,
  corpus: CanonicalisationCorpus,
  corpusFile: string,
): KbProblem[] {
  const file = `${profile.merchantId}.json`;
  const problems: KbProblem[] = [];
  const report = (message: string): void => {
    problems.push({ file, field: FIELD, rule: RULE, message: `${corpusFile}: ${message}` });
  };
  const groupByCanonical = new Map<string, string>();

  for (const group of corpus.groups) {
    const urlsByCanonical = new Map<string, string[]>();
    for (const url of group.urls) {
      const canonical = canonicalizeOrReport(profile, url, (message) =>
        report(`group "${group.product}": ${message}`),
      );
      if (canonical !== null) {
        urlsByCanonical.set(canonical, [...(urlsByCanonical.get(canonical) ?? []), url]);
      }
    }
    const canonicals = [...urlsByCanonical.keys()];
    if (canonicals.length > 1) {
      const parts = [...urlsByCanonical].map(
        ([canonical, urls]) => `${canonical} (${urls.length})`,
      );
      report(`group "${group.product}" splits into ${parts.join(', ')}`);
    } else if (canonicals.length === 1 && canonicals[0] !== group.canonicalUrl) {
      report(
        `group "${group.product}" gives ${canonicals[0]}, the corpus expects ${group.canonicalUrl}`,
      );
    }
    for (const canonical of canonicals) {
      const other = groupByCanonical.get(canonical);
      if (other === undefined) {
        groupByCanonical.set(canonical, group.product);
      } else if (other !== group.product) {
        report(`groups "${other}" and "${group.product}" merge into ${canonical}`);
      }
    }
  }
  return problems;
}

function canonicalizeOrReport(
  profile: MerchantProfile,
  input: string,
  report: (message: string) => void,
): string | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    report(`${input} is not a URL`);
    return null;
  }
  try {
    // A URL object skips the canonicaliser's memo, which trusts the profile version: a profile
    // edited without a new version must be judged by the rules it has now.
    const result = canonicaliseUrl(profile, url);
    if (result.region === null) {
      report(`host of ${input} is not one of ${profile.merchantId}'s`);
      return null;
    }
    return result.canonicalUrl;
  } catch (error) {
    report(`${input} cannot be canonicalised: ${(error as Error).message}`);
    return null;
  }
}
