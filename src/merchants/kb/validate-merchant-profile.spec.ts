import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MerchantProfile, MerchantRegion } from './merchant-profile';
import { hasMerchantProfileShape, validateMerchantProfile } from './validate-merchant-profile';

const SEEDS_DIR = join(__dirname, '../../../seeds/merchants');
const SEED_FILES = readdirSync(SEEDS_DIR).filter((name) => name.endsWith('.json'));

function readSeed(file: string): MerchantProfile {
  return JSON.parse(readFileSync(join(SEEDS_DIR, file), 'utf8')) as MerchantProfile;
}

// Loose views for writing values the types forbid.
type Loose = Record<string, unknown>;
const loose = (value: object): Loose => value as Loose;
const regionOf = (profile: MerchantProfile, key: string): MerchantRegion => profile.regions[key];

interface BrokenCase {
  name: string;
  /** Seed file the case starts from: amazon is direct, adidas a network merchant. */
  base: 'amazon.json' | 'adidas.json';
  fileName?: string;
  break: (profile: MerchantProfile) => void;
  file?: string;
  field: string;
  rule: string;
}

const BROKEN_CASES: BrokenCase[] = [
  {
    name: 'a required field is missing',
    base: 'amazon.json',
    break: (p) => delete loose(p).displayName,
    field: 'displayName',
    rule: 'schema',
  },
  {
    name: 'a field has the wrong type',
    base: 'amazon.json',
    break: (p) => (loose(regionOf(p, 'US')).trustScore = '92'),
    field: 'regions.US.trustScore',
    rule: 'schema',
  },
  {
    name: 'an unknown field is present',
    base: 'amazon.json',
    break: (p) => (loose(p).affiliateTag = 'x-20'),
    field: 'affiliateTag',
    rule: 'schema',
  },
  {
    name: 'the programme type is unknown',
    base: 'amazon.json',
    break: (p) => (loose(p).programType = 'hybrid'),
    field: 'programType',
    rule: 'schema',
  },
  {
    name: 'there are fewer than two examples',
    base: 'amazon.json',
    break: (p) => p.canonicalization.examples.splice(1),
    field: 'canonicalization.examples',
    rule: 'schema',
  },
  {
    name: 'merchantId is not lowercase-hyphenated',
    base: 'amazon.json',
    break: (p) => (p.merchantId = 'Amazon_US'),
    field: 'merchantId',
    rule: 'merchant-id',
  },
  {
    name: 'a hostname is not lowercase',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'US').hostnames[1] = 'Amazon.com'),
    field: 'regions.US.hostnames[1]',
    rule: 'hostname',
  },
  {
    name: 'a banned market is not an alpha-2 code',
    base: 'amazon.json',
    break: (p) => (p.bannedMarkets = ['IRN']),
    field: 'bannedMarkets[0]',
    rule: 'country-code',
  },
  {
    name: 'a ships-to country is lowercase',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'US').availabilityFlags.shipsToCountries = ['us']),
    field: 'regions.US.availabilityFlags.shipsToCountries[0]',
    rule: 'country-code',
  },
  {
    name: 'a param pattern has an inner star',
    base: 'amazon.json',
    break: (p) => (p.canonicalization.dropParams[0] = 'utm*_x'),
    field: 'canonicalization.dropParams[0]',
    rule: 'param-pattern',
  },
  {
    name: 'a region key is not GLOBAL or alpha-2',
    base: 'amazon.json',
    break: (p) => {
      p.regions.USA = p.regions.US;
      delete p.regions.US;
    },
    field: 'regions.USA',
    rule: 'region-key',
  },
  {
    name: 'a region currency is unsupported',
    base: 'amazon.json',
    break: (p) => (loose(regionOf(p, 'US')).baseCurrency = 'CNY'),
    field: 'regions.US.baseCurrency',
    rule: 'currency',
  },
  {
    name: 'the default currency is unsupported',
    base: 'amazon.json',
    break: (p) => (loose(p.regionDefaults).baseCurrency = 'usd'),
    field: 'regionDefaults.baseCurrency',
    rule: 'currency',
  },
  {
    name: 'an EPC hint names an unknown network',
    base: 'adidas.json',
    break: (p) => (loose(regionOf(p, 'US').epcHints).shareasale = 0.1),
    field: 'regions.US.epcHints.shareasale',
    rule: 'network-id',
  },
  {
    name: 'a supported network is unknown',
    base: 'adidas.json',
    break: (p) => (loose(p).supportedNetworks = ['awin', 'cj', 'impact', 'rakuten']),
    field: 'supportedNetworks[3]',
    rule: 'network-id',
  },
  {
    name: 'a category is not a ProductCategory',
    base: 'adidas.json',
    break: (p) => (loose(p).categories = ['fashion', 'accessories', 'sports', 'pets']),
    field: 'categories[3]',
    rule: 'category',
  },
  {
    name: 'a category multiplier key is not a ProductCategory',
    base: 'adidas.json',
    break: (p) => (loose(regionOf(p, 'US').categoryMultipliers).shoes = 1),
    field: 'regions.US.categoryMultipliers.shoes',
    rule: 'category',
  },
  {
    name: 'deepLinkMultiplier is above 0.12',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'US').deepLinkMultiplier = 0.2),
    field: 'regions.US.deepLinkMultiplier',
    rule: 'bounds',
  },
  {
    name: 'a device bias is above 0.10',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'US').deviceBiases.ios = 0.15),
    field: 'regions.US.deviceBiases.ios',
    rule: 'bounds',
  },
  {
    name: 'a device bias is below -0.05',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'JP').deviceBiases.android = -0.1),
    field: 'regions.JP.deviceBiases.android',
    rule: 'bounds',
  },
  {
    name: 'the refund rate is above 1',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'DE').refundRateEstimate = 1.2),
    field: 'regions.DE.refundRateEstimate',
    rule: 'bounds',
  },
  {
    name: 'the COD factor is negative',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'IN').codFactor = -0.1),
    field: 'regions.IN.codFactor',
    rule: 'bounds',
  },
  {
    name: 'a trust score is above 100',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'GB').trustScore = 101),
    field: 'regions.GB.trustScore',
    rule: 'bounds',
  },
  {
    name: 'the default trust score is negative',
    base: 'amazon.json',
    break: (p) => (p.regionDefaults.trustScore = -1),
    field: 'regionDefaults.trustScore',
    rule: 'bounds',
  },
  {
    name: 'a category multiplier is above 1.5',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'US').categoryMultipliers.books = 1.6),
    field: 'regions.US.categoryMultipliers.books',
    rule: 'bounds',
  },
  {
    name: 'a category multiplier is below 0.5',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'US').categoryMultipliers.grocery = 0.4),
    field: 'regions.US.categoryMultipliers.grocery',
    rule: 'bounds',
  },
  {
    name: 'an EPC hint is negative',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'US').epcHints.amazon_associates = -0.01),
    field: 'regions.US.epcHints.amazon_associates',
    rule: 'bounds',
  },
  {
    name: 'meta.version is not YYYY-MM-DD-NN',
    base: 'amazon.json',
    break: (p) => (p.meta.version = '2026-11-22'),
    field: 'meta.version',
    rule: 'meta-version',
  },
  {
    name: 'meta.lastUpdated is not a date-time',
    base: 'amazon.json',
    break: (p) => (p.meta.lastUpdated = '22/11/2026'),
    field: 'meta.lastUpdated',
    rule: 'meta-last-updated',
  },
  {
    name: 'dataConfidenceScore is below 70',
    base: 'amazon.json',
    break: (p) => (p.meta.dataConfidenceScore = 65),
    field: 'meta.dataConfidenceScore',
    rule: 'data-confidence',
  },
  {
    name: 'a path rule has a stateful flag',
    base: 'amazon.json',
    break: (p) => (p.canonicalization.pathRules[0].flags = 'g'),
    field: 'canonicalization.pathRules[0].flags',
    rule: 'path-rule',
  },
  {
    name: 'a path rule does not compile',
    base: 'amazon.json',
    break: (p) => (p.canonicalization.pathRules[0].match = '^/dp/(?<asin>[A-Z0-9{10}$'),
    field: 'canonicalization.pathRules[0].match',
    rule: 'path-rule',
  },
  {
    name: "a path rule's own param list has an inner star",
    base: 'amazon.json',
    break: (p) => (p.canonicalization.pathRules[0].keepParams = ['th*x']),
    field: 'canonicalization.pathRules[0].keepParams[0]',
    rule: 'param-pattern',
  },
  {
    name: 'a redundant param names a group no path rule defines',
    base: 'adidas.json',
    break: (p) =>
      (p.canonicalization.redundantParams = [
        { param: 'forceSelSize', sameAsPathGroup: 'articleSize' },
      ]),
    field: 'canonicalization.redundantParams[0].sameAsPathGroup',
    rule: 'redundant-param',
  },
  {
    name: 'a redundant param is never kept',
    base: 'amazon.json',
    break: (p) => (p.canonicalization.redundantParams = [{ param: 'th', defaultValues: ['1'] }]),
    field: 'canonicalization.redundantParams[0].param',
    rule: 'redundant-param',
  },
  {
    name: 'a redundant param has neither default values nor a path group',
    base: 'amazon.json',
    break: (p) => (p.canonicalization.redundantParams = [{ param: 'k' }]),
    field: 'canonicalization.redundantParams[0]',
    rule: 'redundant-param',
  },
  {
    name: 'a redundant param is a prefix pattern',
    base: 'amazon.json',
    break: (p) => (p.canonicalization.redundantParams = [{ param: 'k*', defaultValues: [''] }]),
    field: 'canonicalization.redundantParams[0].param',
    rule: 'redundant-param',
  },
  {
    name: 'a path rule uses an undefined group',
    base: 'amazon.json',
    break: (p) => (p.canonicalization.pathRules[0].canonicalPath = '/dp/$<sku>'),
    field: 'canonicalization.pathRules[0].canonicalPath',
    rule: 'path-rule',
  },
  {
    name: 'merchantId differs from the file name',
    base: 'amazon.json',
    fileName: 'amazon-us.json',
    break: () => undefined,
    file: 'amazon-us.json',
    field: 'merchantId',
    rule: 'file-name',
  },
  {
    name: 'domains lacks a region hostname',
    base: 'amazon.json',
    break: (p) => (p.domains = p.domains.filter((d) => d !== 'smile.amazon.de')),
    field: 'domains',
    rule: 'domains-union',
  },
  {
    name: 'domains lists a hostname no region serves',
    base: 'amazon.json',
    break: (p) => p.domains.push('amazon.cn'),
    field: 'domains',
    rule: 'domains-union',
  },
  {
    name: 'a storefront is not among its hostnames',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'CA').storefront = 'www.amazon.com.ca'),
    field: 'regions.CA.storefront',
    rule: 'storefront-hostname',
  },
  {
    name: 'a hostname belongs to two regions',
    base: 'amazon.json',
    break: (p) => regionOf(p, 'MX').hostnames.push('amazon.ca'),
    field: 'regions.MX.hostnames',
    rule: 'hostname-region',
  },
  {
    name: 'a direct programme lists networks',
    base: 'amazon.json',
    break: (p) => (p.supportedNetworks = ['awin']),
    field: 'supportedNetworks',
    rule: 'direct-programme',
  },
  {
    name: 'a direct programme claims multi-network routing',
    base: 'amazon.json',
    break: (p) => (p.merchantCapabilities.multiNetworkRouting = true),
    field: 'merchantCapabilities.multiNetworkRouting',
    rule: 'direct-programme',
  },
  {
    name: 'a direct programme has a hint for another network',
    base: 'amazon.json',
    break: (p) => (regionOf(p, 'US').epcHints.awin = 0.01),
    field: 'regions.US.epcHints.awin',
    rule: 'direct-programme',
  },
  {
    name: 'a direct programme has no hint for its own network',
    base: 'amazon.json',
    break: (p) => {
      regionOf(p, 'CA').epcHints = {};
      regionOf(p, 'CA').preferredNetworks = [];
    },
    field: 'regions.CA.epcHints.amazon_associates',
    rule: 'direct-programme',
  },
  {
    name: 'a direct merchant has no in-house programme',
    base: 'amazon.json',
    fileName: 'amazon-fresh.json',
    break: (p) => (p.merchantId = 'amazon-fresh'),
    file: 'amazon-fresh.json',
    field: 'programType',
    rule: 'direct-programme',
  },
  {
    name: 'a network programme lists no network',
    base: 'adidas.json',
    break: (p) => {
      p.supportedNetworks = [];
      for (const region of Object.values(p.regions)) {
        region.epcHints = {};
        region.preferredNetworks = [];
      }
    },
    field: 'supportedNetworks',
    rule: 'network-programme',
  },
  {
    name: 'a network programme lists an in-house programme',
    base: 'adidas.json',
    break: (p) => {
      p.supportedNetworks.push('amazon_associates');
      for (const region of Object.values(p.regions)) {
        region.epcHints.amazon_associates = 0;
      }
    },
    field: 'supportedNetworks[4]',
    rule: 'network-programme',
  },
  {
    name: 'a hint names a network the merchant does not support',
    base: 'adidas.json',
    break: (p) => (regionOf(p, 'US').epcHints.partnerize = 0.02),
    field: 'regions.US.epcHints.partnerize',
    rule: 'network-hints',
  },
  {
    name: 'a supported network has no hint in a region',
    base: 'adidas.json',
    break: (p) => delete regionOf(p, 'US').epcHints.awin,
    field: 'regions.US.epcHints.awin',
    rule: 'network-hints',
  },
  {
    name: 'a preferred network has a zero hint',
    base: 'adidas.json',
    break: (p) => regionOf(p, 'US').preferredNetworks.push('awin'),
    field: 'regions.US.preferredNetworks[2]',
    rule: 'preferred-networks',
  },
  {
    name: 'a category multiplier is for a category not sold',
    base: 'adidas.json',
    break: (p) => (regionOf(p, 'US').categoryMultipliers.books = 1),
    field: 'regions.US.categoryMultipliers.books',
    rule: 'category-scope',
  },
  {
    name: 'a banned market has a region',
    base: 'amazon.json',
    break: (p) => (p.bannedMarkets = ['DE']),
    field: 'bannedMarkets[0]',
    rule: 'banned-market',
  },
  {
    name: 'an example expects another canonical URL',
    base: 'amazon.json',
    // th=1 restates the ASIN of the path, so the canonical form no longer keeps it.
    break: (p) =>
      (p.canonicalization.examples[0].canonical = 'https://www.amazon.com/dp/B0CHWRXH8B?th=1'),
    field: 'canonicalization.examples[0].canonical',
    rule: 'example',
  },
  {
    name: 'an example input is another merchant',
    base: 'amazon.json',
    break: (p) => (p.canonicalization.examples[1].input = 'https://www.ebay.com/itm/385627914351'),
    field: 'canonicalization.examples[1].input',
    rule: 'example',
  },
  {
    name: 'an example input is not a URL',
    base: 'amazon.json',
    break: (p) => (p.canonicalization.examples[2].input = 'amazon dot com'),
    field: 'canonicalization.examples[2].input',
    rule: 'example',
  },
  {
    name: 'an example canonical form is not stable',
    base: 'amazon.json',
    break: (p) => {
      p.canonicalization.pathRules = [{ match: '^/(?<rest>.*)$', canonicalPath: '/a/$<rest>' }];
      p.canonicalization.examples = [
        { input: 'https://www.amazon.com/b', canonical: 'https://www.amazon.com/a/b' },
        { input: 'https://www.amazon.com/c', canonical: 'https://www.amazon.com/a/c' },
      ];
    },
    field: 'canonicalization.examples[0].canonical',
    rule: 'example',
  },
];

describe(validateMerchantProfile.name, () => {
  it.each(SEED_FILES)('should find no problem when the profile is the seed %s', (file) => {
    expect(validateMerchantProfile(readSeed(file), file)).toEqual([]);
  });

  it.each(BROKEN_CASES)(
    'should report $rule at $field when $name',
    ({ base, fileName, break: breakProfile, file, field, rule }) => {
      const profile = structuredClone(readSeed(base));
      breakProfile(profile);
      const problems = validateMerchantProfile(profile, fileName ?? base);
      expect(problems).toContainEqual(
        expect.objectContaining({ file: file ?? base, field, rule, message: expect.any(String) }),
      );
      expect(new Set(problems.map((problem) => problem.rule))).toEqual(new Set([rule]));
    },
  );

  it('should cover every rule it can report when the broken cases run', () => {
    const rules = new Set(BROKEN_CASES.map((brokenCase) => brokenCase.rule));
    expect([...rules].sort()).toEqual(
      [
        'banned-market',
        'bounds',
        'category',
        'category-scope',
        'country-code',
        'currency',
        'data-confidence',
        'direct-programme',
        'domains-union',
        'example',
        'file-name',
        'hostname',
        'hostname-region',
        'merchant-id',
        'meta-last-updated',
        'meta-version',
        'network-hints',
        'network-id',
        'network-programme',
        'param-pattern',
        'path-rule',
        'preferred-networks',
        'redundant-param',
        'region-key',
        'schema',
        'storefront-hostname',
      ].sort(),
    );
  });

  it.each([null, 42, 'amazon', []])(
    'should report a schema problem when the profile is %p',
    (value) => {
      expect(validateMerchantProfile(value, 'x.json')).toEqual([
        expect.objectContaining({ file: 'x.json', field: '(root)', rule: 'schema' }),
      ]);
    },
  );

  it('should strip directories from the file name when given a path', () => {
    expect(
      validateMerchantProfile(readSeed('amazon.json'), '/seeds/merchants/amazon.json'),
    ).toEqual([]);
  });
});

describe(hasMerchantProfileShape.name, () => {
  it.each([
    { value: readSeed('amazon.json'), expected: true },
    { value: { ...readSeed('amazon.json'), meta: undefined }, expected: false },
    { value: {}, expected: false },
  ])(
    'should give $expected when the value is checked against the schema',
    ({ value, expected }) => {
      expect(hasMerchantProfileShape(value)).toBe(expected);
    },
  );
});
