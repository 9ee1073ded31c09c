import {
  cpSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CANONICALISATION_CORPUS_DIR, checkKnowledgeBase } from './check-knowledge-base';
import {
  IN_HOUSE_NETWORK_BY_MERCHANT,
  NETWORK_IDS,
  SUPPORTED_CURRENCIES,
  type MerchantProfile,
} from './merchant-profile';
import type { CanonicalisationCorpus } from './check-canonicalisation-corpus';

const SEEDS_DIR = join(__dirname, '../../../seeds/merchants');
const seeds = checkKnowledgeBase(SEEDS_DIR);
const byId = new Map(seeds.profiles.map((profile) => [profile.merchantId, profile]));

const MERCHANT_IDS = [
  'adidas',
  'ajio',
  'aliexpress',
  'amazon',
  'apple',
  'argos',
  'asos',
  'best-buy',
  'bh-photo-video',
  'coupang',
  'currys',
  'decathlon',
  'ebay',
  'etsy',
  'flipkart',
  'home-depot',
  'ikea',
  'john-lewis',
  'jumia',
  'lazada',
  'mercado-libre',
  'myntra',
  'newegg',
  'nike',
  'noon',
  'nykaa',
  'rakuten-ichiba',
  'sephora',
  'shopee',
  'takealot',
  'target',
  'ulta',
  'walmart',
  'wayfair',
  'zalando',
];
const GENERAL_NETWORKS = NETWORK_IDS.slice(0, 7);
const AMAZON_TLDS: Record<string, string> = {
  US: 'com',
  GB: 'co.uk',
  DE: 'de',
  FR: 'fr',
  IT: 'it',
  ES: 'es',
  IN: 'in',
  CA: 'ca',
  AU: 'com.au',
  JP: 'co.jp',
  AE: 'ae',
  SA: 'sa',
  SG: 'sg',
  MX: 'com.mx',
  BR: 'com.br',
};

const regionsOf = (profile: MerchantProfile) => Object.values(profile.regions);

function profileOf(merchantId: string): MerchantProfile {
  const profile = byId.get(merchantId);
  if (profile === undefined) {
    throw new Error(`no seed profile ${merchantId}`);
  }
  return profile;
}

interface CrossFileCase {
  name: string;
  change: (dir: string) => void;
  file: string;
  field: string;
  rule: string;
}

function editSeed(dir: string, file: string, edit: (profile: MerchantProfile) => void): void {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as MerchantProfile;
  edit(profile);
  writeFileSync(join(dir, file), JSON.stringify(profile));
}

const CROSS_FILE_CASES: CrossFileCase[] = [
  {
    name: 'a file is not JSON',
    change: (dir) => writeFileSync(join(dir, 'argos.json'), '{ "merchantId": '),
    file: 'argos.json',
    field: '(root)',
    rule: 'json',
  },
  {
    name: 'a profile is missing',
    change: (dir) => unlinkSync(join(dir, 'argos.json')),
    file: '*.json',
    field: '(root)',
    rule: 'merchant-count',
  },
  {
    name: 'two merchants claim one hostname',
    change: (dir) =>
      editSeed(dir, 'ebay.json', (profile) => {
        profile.regions.US.hostnames.push('www.amazon.com');
        profile.domains.push('www.amazon.com');
      }),
    file: 'ebay.json',
    field: 'regions.US.hostnames',
    rule: 'hostname-conflict',
  },
  {
    name: 'a currency is no longer used',
    change: (dir) =>
      editSeed(dir, 'takealot.json', (profile) => {
        profile.regions.ZA.baseCurrency = 'USD';
      }),
    file: '*.json',
    field: 'regions.*.baseCurrency',
    rule: 'currency-coverage',
  },
  {
    name: 'a profile version has no changelog entry',
    change: (dir) =>
      editSeed(dir, 'amazon.json', (profile) => {
        profile.meta.version = '2026-11-23-01';
      }),
    file: 'CHANGELOG.md',
    field: 'amazon',
    rule: 'changelog',
  },
  {
    name: 'the changelog is missing',
    change: (dir) => unlinkSync(join(dir, 'CHANGELOG.md')),
    file: 'CHANGELOG.md',
    field: '(root)',
    rule: 'changelog',
  },
  {
    name: 'a file is not named after its merchant',
    change: (dir) => renameSync(join(dir, 'nike.json'), join(dir, 'nike-us.json')),
    file: 'nike-us.json',
    field: 'merchantId',
    rule: 'file-name',
  },
];

interface CorpusCase {
  name: string;
  change: (seedsDir: string, corpusDir: string) => void;
  file: string;
  field: string;
  message: RegExp;
}

function editCorpus(dir: string, file: string, edit: (corpus: CanonicalisationCorpus) => void) {
  const corpus = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CanonicalisationCorpus;
  edit(corpus);
  writeFileSync(join(dir, file), JSON.stringify(corpus));
}

const CORPUS_CASES: CorpusCase[] = [
  {
    name: "a profile's rules no longer drop a default value, so a group splits",
    change: (seedsDir) =>
      editSeed(seedsDir, 'sephora.json', (profile) => {
        delete profile.canonicalization.redundantParams;
      }),
    file: 'sephora.json',
    field: 'canonicalization',
    message:
      /^canonicalisation\/sephora\.json: group "The Ordinary .*30 mL.*" splits into https:\/\/www\.sephora\.com\/product\/P427417\?skuId=2201147 \(4\), https:\/\/www\.sephora\.com\/product\/P427417\?skuId=2201147&lang=en \(1\)$/,
  },
  {
    name: "a profile's rules drop a variant selector, so two groups merge",
    change: (seedsDir) =>
      editSeed(seedsDir, 'zalando.json', (profile) => {
        const rules = profile.canonicalization;
        rules.dropParams.push('size');
        rules.examples = rules.examples.filter((example) => !example.input.includes('size='));
      }),
    file: 'zalando.json',
    field: 'canonicalization',
    message:
      /: groups "Nike .*no size chosen" and "Nike .*size 42" merge into https:\/\/www\.zalando\.de\/nike-/,
  },
  {
    name: 'a group expects another canonical URL than its forms give',
    change: (_seedsDir, corpusDir) =>
      editCorpus(corpusDir, 'amazon.json', (corpus) => {
        corpus.groups[0].canonicalUrl = 'https://www.amazon.com/dp/B0CHWRXH8B?th=1';
      }),
    file: 'amazon.json',
    field: 'canonicalization',
    message: /gives https:\/\/www\.amazon\.com\/dp\/B0CHWRXH8B, the corpus expects .*\?th=1$/,
  },
  {
    name: 'a form is on a host the merchant does not claim',
    change: (_seedsDir, corpusDir) =>
      editCorpus(corpusDir, 'amazon.json', (corpus) => {
        corpus.groups[0].urls.push('https://amzn.to/3xYzAbC');
      }),
    file: 'amazon.json',
    field: 'canonicalization',
    message: /host of https:\/\/amzn\.to\/3xYzAbC is not one of amazon's$/,
  },
  {
    name: 'a corpus file is not a corpus',
    change: (_seedsDir, corpusDir) =>
      writeFileSync(join(corpusDir, 'argos.json'), JSON.stringify({ merchantId: 'argos' })),
    file: 'canonicalisation/argos.json',
    field: '(root)',
    message: /^not a corpus/,
  },
  {
    name: 'a corpus file is named after another merchant',
    change: (_seedsDir, corpusDir) =>
      renameSync(join(corpusDir, 'nike.json'), join(corpusDir, 'nike-us.json')),
    file: 'canonicalisation/nike-us.json',
    field: '(root)',
    message: /must live in nike\.json$/,
  },
];

describe(checkKnowledgeBase.name, () => {
  it('should find no problem when it reads the seed knowledge base and its corpus', () => {
    expect(seeds.problems).toEqual([]);
  });

  it('should skip the corpus when its folder is absent', () => {
    const dir = mkdtempSync(join(tmpdir(), 'linkpilot-kb-'));
    try {
      cpSync(SEEDS_DIR, dir, { recursive: true });
      editSeed(dir, 'sephora.json', (profile) => {
        delete profile.canonicalization.redundantParams;
      });
      expect(checkKnowledgeBase(dir, join(dir, 'no-corpus')).problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(CORPUS_CASES)(
    'should report corpus for $file when $name',
    ({ change, file, field, message }) => {
      const dir = mkdtempSync(join(tmpdir(), 'linkpilot-kb-'));
      const seedsDir = join(dir, 'merchants');
      const corpusDir = join(dir, 'canonicalisation');
      try {
        cpSync(SEEDS_DIR, seedsDir, { recursive: true });
        cpSync(CANONICALISATION_CORPUS_DIR, corpusDir, { recursive: true });
        change(seedsDir, corpusDir);
        const { problems } = checkKnowledgeBase(seedsDir, corpusDir);
        expect(problems).toContainEqual({
          file,
          field,
          rule: 'corpus',
          message: expect.stringMatching(message),
        });
        expect(new Set(problems.map((problem) => problem.rule))).toEqual(new Set(['corpus']));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('should return the 35 merchants by id when it reads the seeds', () => {
    expect(seeds.profiles.map((profile) => profile.merchantId)).toEqual(MERCHANT_IDS);
  });

  it.each(CROSS_FILE_CASES)(
    'should report $rule for $file when $name',
    ({ change, file, field, rule }) => {
      const dir = mkdtempSync(join(tmpdir(), 'linkpilot-kb-'));
      try {
        cpSync(SEEDS_DIR, dir, { recursive: true });
        change(dir);
        const { problems } = checkKnowledgeBase(dir);
        expect(problems).toContainEqual(expect.objectContaining({ file, field, rule }));
        expect(new Set(problems.map((problem) => problem.rule))).toEqual(new Set([rule]));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

// The data requirements of the seed knowledge base, checked on the data itself.
describe('seed merchant knowledge base', () => {
  it('should use all 23 currencies when the regions are taken together', () => {
    const used = new Set(seeds.profiles.flatMap((p) => regionsOf(p).map((r) => r.baseCurrency)));
    expect([...used].sort()).toEqual([...SUPPORTED_CURRENCIES].sort());
  });

  it('should route the five in-house programmes directly when the merchant owns one', () => {
    const direct = seeds.profiles.filter((profile) => profile.programType === 'direct');
    expect(direct.map((profile) => profile.merchantId).sort()).toEqual(
      Object.keys(IN_HOUSE_NETWORK_BY_MERCHANT).sort(),
    );
    for (const profile of direct) {
      expect(profile.supportedNetworks).toEqual([]);
      expect(profile.merchantCapabilities.multiNetworkRouting).toBe(false);
    }
  });

  it.each(MERCHANT_IDS.filter((id) => !(id in IN_HOUSE_NETWORK_BY_MERCHANT)))(
    'should list 2 to 6 general networks when %s is a network merchant',
    (merchantId) => {
      const profile = profileOf(merchantId);
      expect(profile.programType).toBe('network');
      expect(profile.supportedNetworks.length).toBeGreaterThanOrEqual(2);
      expect(profile.supportedNetworks.length).toBeLessThanOrEqual(6);
      expect(GENERAL_NETWORKS).toEqual(expect.arrayContaining(profile.supportedNetworks));
    },
  );

  it('should include the special cases when the whole knowledge base is considered', () => {
    const withGlobal = seeds.profiles.filter((profile) => profile.regions.GLOBAL !== undefined);
    expect(withGlobal.length).toBeGreaterThanOrEqual(4);
    expect(seeds.profiles.some((profile) => profile.programStatus === 'closed')).toBe(true);
    expect(seeds.profiles.some((profile) => profile.bannedMarkets.length > 0)).toBe(true);
    expect(
      seeds.profiles.some((profile) => regionsOf(profile).some((r) => r.passthroughRequired)),
    ).toBe(true);
  });

  it.each(Object.entries(AMAZON_TLDS))(
    'should give Amazon a %s storefront with bare, www. and m. hosts when it is listed',
    (region, tld) => {
      const storefront = profileOf('amazon').regions[region];
      expect(storefront.storefront).toBe(`www.amazon.${tld}`);
      expect(storefront.hostnames).toEqual(
        expect.arrayContaining([`amazon.${tld}`, `www.amazon.${tld}`, `m.amazon.${tld}`]),
      );
    },
  );

  it('should claim the smile. hosts and not amzn.to when Amazon domains are listed', () => {
    const { domains } = profileOf('amazon');
    expect(domains).toEqual(
      expect.arrayContaining(['smile.amazon.com', 'smile.amazon.co.uk', 'smile.amazon.de']),
    );
    expect(seeds.profiles.flatMap((profile) => profile.domains)).not.toContain('amzn.to');
  });

  // Profiles start at 2026-11-22-01; a change brings a new version dated the day of the change.
  it.each(MERCHANT_IDS)('should carry dated meta when the profile is %s', (merchantId) => {
    const { meta, canonicalization } = profileOf(merchantId);
    const day = meta.lastUpdated.slice(0, 10);
    expect(meta.version.startsWith(`${day}-`)).toBe(true);
    expect(meta.lastUpdated).toBe(`${day}T00:00:00.000Z`);
    expect(day >= '2026-11-22').toBe(true);
    expect(meta.dataConfidenceScore).toBeGreaterThanOrEqual(70);
    expect(meta.dataConfidenceScore).toBeLessThanOrEqual(97);
    expect(canonicalization.examples.length).toBeGreaterThanOrEqual(2);
  });

  it.each(MERCHANT_IDS)('should keep trust and refund in range when the profile is %s', (id) => {
    for (const region of regionsOf(profileOf(id))) {
      expect(region.trustScore).toBeGreaterThanOrEqual(60);
      expect(region.trustScore).toBeLessThanOrEqual(95);
      expect(region.refundRateEstimate).toBeGreaterThanOrEqual(0.02);
      expect(region.refundRateEstimate).toBeLessThanOrEqual(0.25);
    }
  });
});
