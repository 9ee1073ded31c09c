import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { projectRoot } from '../../common/project-root';
import {
  checkCanonicalisationCorpus,
  isCanonicalisationCorpus,
  type CanonicalisationCorpus,
} from './check-canonicalisation-corpus';
import { SUPPORTED_CURRENCIES, type KbProblem, type MerchantProfile } from './merchant-profile';
import { hasMerchantProfileShape, validateMerchantProfile } from './validate-merchant-profile';

/** SPEC: the knowledge base holds exactly 35 merchants. */
export const EXPECTED_MERCHANT_COUNT = 35;
const CHANGELOG_FILE = 'CHANGELOG.md';
/** Real-world URL forms grouped by product, one file per merchant; absent from a deployed build. */
export const CANONICALISATION_CORPUS_DIR = join(
  projectRoot(),
  'test',
  'fixtures',
  'canonicalisation',
);

// `## <merchantId> <meta.version>` opens one changelog entry.
const CHANGELOG_HEADING = /^## ([a-z0-9-]+) (\d{4}-\d{2}-\d{2}-\d{2})\s*$/gm;

export interface KnowledgeBaseCheck {
  /** Profiles of the right shape, by merchantId; usable only when `problems` is empty. */
  profiles: MerchantProfile[];
  problems: KbProblem[];
}

/**
 * Reads every `*.json` profile in `dir` and checks each one plus the rules across files:
 * the merchant count, hostnames claimed by two merchants, coverage of the 23 currencies, a
 * changelog entry for each profile's current version and, when `corpusDir` exists, the
 * canonicalisation corpus against each profile that passed its own checks.
 */
export function checkKnowledgeBase(
  dir: string,
  corpusDir = CANONICALISATION_CORPUS_DIR,
): KnowledgeBaseCheck {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort();
  const profiles: MerchantProfile[] = [];
  const soundProfiles: MerchantProfile[] = [];
  const problems: KbProblem[] = [];

  for (const file of files) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (error) {
      problems.push({ file, field: '(root)', rule: 'json', message: (error as Error).message });
      continue;
    }
    const own = validateMerchantProfile(parsed, file);
    problems.push(...own);
    if (hasMerchantProfileShape(parsed)) {
      profiles.push(parsed);
      if (own.length === 0) soundProfiles.push(parsed);
    }
  }

  if (files.length !== EXPECTED_MERCHANT_COUNT) {
    problems.push({
      file: '*.json',
      field: '(root)',
      rule: 'merchant-count',
      message: `expected ${EXPECTED_MERCHANT_COUNT} merchant profiles, found ${files.length}`,
    });
  }
  problems.push(...findHostnameConflicts(profiles));
  problems.push(...findUnusedCurrencies(profiles));
  problems.push(...findMissingChangelogEntries(dir, profiles));
  if (existsSync(corpusDir)) {
    problems.push(...findCorpusProblems(corpusDir, soundProfiles));
  }
  return { profiles, problems };
}

// A profile with problems of its own, or missing, is reported by the checks above; its corpus
// is checked once the profile is sound.
function findCorpusProblems(corpusDir: string, profiles: readonly MerchantProfile[]): KbProblem[] {
  const byId = new Map(profiles.map((profile) => [profile.merchantId, profile]));
  const names = readdirSync(corpusDir)
    .filter((name) => name.endsWith('.json'))
    .sort();
  const problems: KbProblem[] = [];
  for (const name of names) {
    const corpusFile = join(basename(corpusDir), name);
    const corpus = readCorpus(join(corpusDir, name), corpusFile, problems);
    const profile = corpus === null ? undefined : byId.get(corpus.merchantId);
    if (corpus !== null && profile !== undefined) {
      problems.push(...checkCanonicalisationCorpus(profile, corpus, corpusFile));
    }
  }
  return problems;
}

function readCorpus(
  path: string,
  corpusFile: string,
  problems: KbProblem[],
): CanonicalisationCorpus | null {
  const report = (message: string): null => {
    problems.push({ file: corpusFile, field: '(root)', rule: 'corpus', message });
    return null;
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return report((error as Error).message);
  }
  if (!isCanonicalisationCorpus(parsed)) {
    return report('not a corpus: {merchantId, groups: [{product, canonicalUrl, urls: [...]}]}');
  }
  if (`${parsed.merchantId}.json` !== basename(path)) {
    return report(`merchantId "${parsed.merchantId}" must live in ${parsed.merchantId}.json`);
  }
  return parsed;
}

function findHostnameConflicts(profiles: readonly MerchantProfile[]): KbProblem[] {
  const claimedBy = new Map<string, string>();
  const problems: KbProblem[] = [];
  for (const profile of profiles) {
    for (const [key, region] of Object.entries(profile.regions)) {
      for (const hostname of region.hostnames) {
        const other = claimedBy.get(hostname);
        if (other === undefined) {
          claimedBy.set(hostname, profile.merchantId);
        } else if (other !== profile.merchantId) {
          problems.push({
            file: `${profile.merchantId}.json`,
            field: `regions.${key}.hostnames`,
            rule: 'hostname-conflict',
            message: `${hostname} is already claimed by ${other}`,
          });
        }
      }
    }
  }
  return problems;
}

function findUnusedCurrencies(profiles: readonly MerchantProfile[]): KbProblem[] {
  const used = new Set(
    profiles.flatMap((profile) => Object.values(profile.regions).map((r) => r.baseCurrency)),
  );
  const unused = SUPPORTED_CURRENCIES.filter((currency) => !used.has(currency));
  return unused.length === 0
    ? []
    : [
        {
          file: '*.json',
          field: 'regions.*.baseCurrency',
          rule: 'currency-coverage',
          message: `no region uses ${unused.join(', ')}; the regions must cover all ${SUPPORTED_CURRENCIES.length} currencies`,
        },
      ];
}

function findMissingChangelogEntries(
  dir: string,
  profiles: readonly MerchantProfile[],
): KbProblem[] {
  const path = join(dir, CHANGELOG_FILE);
  if (!existsSync(path)) {
    return [
      { file: CHANGELOG_FILE, field: '(root)', rule: 'changelog', message: 'changelog is missing' },
    ];
  }
  const entries = new Set(
    [...readFileSync(path, 'utf8').matchAll(CHANGELOG_HEADING)].map((m) => `${m[1]} ${m[2]}`),
  );
  return profiles
    .filter((profile) => !entries.has(`${profile.merchantId} ${profile.meta.version}`))
    .map((profile) => ({
      file: CHANGELOG_FILE,
      field: profile.merchantId,
      rule: 'changelog',
      message: `no "## ${profile.merchantId} ${profile.meta.version}" entry for the profile's current version`,
    }));
}
