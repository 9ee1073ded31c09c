import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicaliseUrl } from './canonicalise-url';
import {
  isCanonicalisationCorpus,
  type CanonicalisationCorpus,
} from './check-canonicalisation-corpus';
import {
  CANONICALISATION_CORPUS_DIR,
  EXPECTED_MERCHANT_COUNT,
  checkKnowledgeBase,
} from './check-knowledge-base';
import type { MerchantProfile } from './merchant-profile';

const SEEDS_DIR = join(__dirname, '../../../seeds/merchants');
const { profiles } = checkKnowledgeBase(SEEDS_DIR);
const MIN_URLS_PER_MERCHANT = 10;

const corpora: CanonicalisationCorpus[] = readdirSync(CANONICALISATION_CORPUS_DIR)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => {
    const parsed: unknown = JSON.parse(
      readFileSync(join(CANONICALISATION_CORPUS_DIR, name), 'utf8'),
    );
    if (!isCanonicalisationCorpus(parsed)) throw new Error(`${name} is not a corpus`);
    return parsed;
  });

function profileOf(merchantId: string): MerchantProfile {
  const profile = profiles.find((candidate) => candidate.merchantId === merchantId);
  if (profile === undefined) throw new Error(`no seed profile ${merchantId}`);
  return profile;
}

const FORMS = corpora.flatMap(({ merchantId, groups }) =>
  groups.flatMap(({ product, canonicalUrl, urls }) =>
    urls.map((url) => ({ merchantId, product, canonicalUrl, url })),
  ),
);

// The URL as typed, before `URL` normalises it: the host as written, the raw path and query.
const RAW_URL = /^https?:\/\/(?<host>[^/?#]+)(?<path>[^?#]*)(?<query>\?[^#]*)?(?<fragment>#.*)?$/;

// Ad-click ids, UTM, and the affiliate ids of the networks and in-house programmes.
const TRACKING =
  /[?&](utm_[a-z]+|gclid|fbclid|[a-z_]*clickid|awc|cjevent|tag|at|mkcid|affid|matt_tool|scid|wmlspartner|lptag)=/i;

/** Kinds of real-world variation each merchant's corpus must show at least once. */
const REQUIRED_FORMS: { form: string; isShownBy: (url: string) => boolean }[] = [
  { form: 'an upper-case host', isShownBy: (url) => /[A-Z]/.test(rawPart(url, 'host')) },
  { form: 'a fragment', isShownBy: (url) => rawPart(url, 'fragment') !== '' },
  { form: 'a trailing slash', isShownBy: (url) => /.\/$/.test(rawPart(url, 'path')) },
  {
    form: 'a percent-encoded path or query',
    isShownBy: (url) => /%[0-9A-Fa-f]{2}/.test(rawPart(url, 'path') + rawPart(url, 'query')),
  },
  { form: 'a tracking, affiliate or campaign param', isShownBy: (url) => TRACKING.test(url) },
];

function rawPart(url: string, part: 'host' | 'path' | 'query' | 'fragment'): string {
  return RAW_URL.exec(url)?.groups?.[part] ?? '';
}

describe('canonicalisation corpus', () => {
  it(`should cover all ${EXPECTED_MERCHANT_COUNT} merchants when the fixtures are read`, () => {
    expect(corpora.map((corpus) => corpus.merchantId)).toEqual(
      profiles.map((profile) => profile.merchantId),
    );
    expect(corpora).toHaveLength(EXPECTED_MERCHANT_COUNT);
  });

  it.each(corpora.map((corpus) => [corpus.merchantId, corpus]))(
    'should hold enough forms in several groups when the merchant is %s',
    (_merchantId, { groups }) => {
      expect(groups.flatMap((group) => group.urls).length).toBeGreaterThanOrEqual(
        MIN_URLS_PER_MERCHANT,
      );
      expect(groups.length).toBeGreaterThanOrEqual(3);
    },
  );

  it.each(
    corpora.flatMap(({ merchantId, groups }) =>
      REQUIRED_FORMS.map(({ form, isShownBy }) => ({ merchantId, form, groups, isShownBy })),
    ),
  )('should show $form when the merchant is $merchantId', ({ groups, isShownBy }) => {
    expect(groups.flatMap((group) => group.urls).some(isShownBy)).toBe(true);
  });

  it.each(FORMS)(
    'should give $canonicalUrl when the $merchantId URL is $url',
    ({ merchantId, url, canonicalUrl }) => {
      const result = canonicaliseUrl(profileOf(merchantId), url);
      expect(result.canonicalUrl).toBe(canonicalUrl);
      expect(result.region).not.toBeNull();
    },
  );

  it.each(corpora.map((corpus) => [corpus.merchantId, corpus]))(
    'should give each product group its own stable canonical URL when the merchant is %s',
    (merchantId, { groups }) => {
      const profile = profileOf(merchantId);
      const canonicalUrls = groups.map((group) => group.canonicalUrl);
      expect(new Set(canonicalUrls).size).toBe(groups.length);
      for (const canonicalUrl of canonicalUrls) {
        expect(canonicaliseUrl(profile, canonicalUrl).canonicalUrl).toBe(canonicalUrl);
      }
    },
  );
});
