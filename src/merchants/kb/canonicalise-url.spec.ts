import { join } from 'node:path';
import fc from 'fast-check';
import { canonicaliseUrl } from './canonicalise-url';
import { checkKnowledgeBase } from './check-knowledge-base';
import type { MerchantProfile } from './merchant-profile';

const SEEDS_DIR = join(__dirname, '../../../seeds/merchants');
const { profiles } = checkKnowledgeBase(SEEDS_DIR);

function profileOf(merchantId: string): MerchantProfile {
  const profile = profiles.find((candidate) => candidate.merchantId === merchantId);
  if (profile === undefined) {
    throw new Error(`no seed profile ${merchantId}`);
  }
  return profile;
}

const amazon = profileOf('amazon');

// Three or more messy real-world URLs per Amazon URL family.
const AMAZON_CASES: { family: string; input: string; expected: string }[] = [
  {
    family: '/dp/',
    input: 'https://www.amazon.com/dp/B0CHWRXH8B',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: '/dp/',
    input: 'https://www.amazon.ca/dp/0593230256?_encoding=UTF8&qid=1700000000&sr=1-1',
    expected: 'https://www.amazon.ca/dp/0593230256',
  },
  {
    family: '/dp/',
    input: 'https://www.amazon.com.mx/dp/B0BDJ279KF?th=1&psc=1&language=es_MX',
    expected: 'https://www.amazon.com.mx/dp/B0BDJ279KF',
  },
  {
    family: '/dp/',
    input: 'https://www.amazon.nl/dp/B0BZ8TRZ6Q?smid=A17D2BRD4YMT0X&th=1',
    expected: 'https://www.amazon.nl/dp/B0BZ8TRZ6Q',
  },
  {
    family: '/gp/product/',
    input: 'https://www.amazon.com/gp/product/B07FZ8S74R',
    expected: 'https://www.amazon.com/dp/B07FZ8S74R',
  },
  {
    family: '/gp/product/',
    input:
      'https://www.amazon.co.uk/gp/product/B08N5WRWNW/ref=ox_sc_act_title_1?smid=A3P5ROKL5A1OLE&psc=1',
    expected: 'https://www.amazon.co.uk/dp/B08N5WRWNW',
  },
  {
    family: '/gp/product/',
    input:
      'https://www.amazon.in/gp/product/B0BSNP46QP?pf_rd_r=ABC&pf_rd_p=123&pd_rd_r=x&pd_rd_w=y&pd_rd_wg=z',
    expected: 'https://www.amazon.in/dp/B0BSNP46QP',
  },
  {
    family: '/gp/aw/d/',
    input: 'https://www.amazon.com/gp/aw/d/B09JQMJHXY',
    expected: 'https://www.amazon.com/dp/B09JQMJHXY',
  },
  {
    family: '/gp/aw/d/',
    input: 'https://m.amazon.com/gp/aw/d/B09JQMJHXY/ref=mp_s_a_1_1?keywords=kindle&qid=1',
    expected: 'https://www.amazon.com/dp/B09JQMJHXY',
  },
  {
    family: '/gp/aw/d/',
    input: 'https://www.amazon.co.jp/gp/aw/d/4088820037/?th=1',
    expected: 'https://www.amazon.co.jp/dp/4088820037',
  },
  {
    family: 'slug before /dp/',
    input:
      'https://www.amazon.com/Some-Product-Name/dp/B0BSHF7WHW/ref=sr_1_3?keywords=x&qid=1&sr=8-3',
    expected: 'https://www.amazon.com/dp/B0BSHF7WHW',
  },
  {
    family: 'slug before /dp/',
    input:
      'https://www.amazon.de/Bosch-Akku-Bohrschrauber-GSR-Professional/dp/B00D5PR2BU?ref_=ast_sto_dp',
    expected: 'https://www.amazon.de/dp/B00D5PR2BU',
  },
  {
    family: 'slug before /dp/',
    input: 'https://www.amazon.fr/-/en/Apple-iPhone-128-Go-Noir/dp/B0CHX3QBCH/ref=sr_1_2',
    expected: 'https://www.amazon.fr/dp/B0CHX3QBCH',
  },
  {
    family: 'ref= path segment',
    input: 'https://www.amazon.com/dp/B0CHWRXH8B/ref=cm_sw_r_cp_api_i_abc',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'ref= path segment',
    input:
      'https://www.amazon.it/dp/B0C1H26C46/ref=sr_1_1_sspa?crid=x&sp_csd=d2lkZ2V0TmFtZT1zcF9hdGY&psc=1',
    expected: 'https://www.amazon.it/dp/B0C1H26C46',
  },
  {
    family: 'ref= path segment',
    input:
      'https://www.amazon.es/gp/product/B0B7RSV894/ref=ppx_yo_dt_b_search_asin_title/ref=as_li_ss_tl',
    expected: 'https://www.amazon.es/dp/B0B7RSV894',
  },
  {
    family: 'tag= param',
    input: 'https://www.amazon.com/dp/B0CHWRXH8B?tag=othercreator-20',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'tag= param',
    input:
      'https://www.amazon.co.uk/dp/B08N5WRWNW?tag=creator-21&linkCode=ll1&linkId=abc123&language=en_GB&ref_=as_li_ss_tl',
    expected: 'https://www.amazon.co.uk/dp/B08N5WRWNW',
  },
  {
    family: 'tag= param',
    input: 'https://www.amazon.in/dp/B0BSNP46QP?th=1&tag=deals-21&ascsubtag=post42',
    expected: 'https://www.amazon.in/dp/B0BSNP46QP',
  },
  {
    family: 'tag= param',
    input: 'https://www.amazon.com/dp/B0CHWRXH8B?TAG=shouty-20',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'utm_* params',
    input:
      'https://www.amazon.com/dp/B0CHWRXH8B?utm_source=newsletter&utm_medium=email&utm_campaign=bf2026',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'utm_* params',
    input: 'https://www.amazon.de/dp/B09QFPBF8T?UTM_Source=Instagram&psc=1',
    expected: 'https://www.amazon.de/dp/B09QFPBF8T',
  },
  {
    family: 'utm_* params',
    input: 'https://www.amazon.com.au/s?k=coffee+machine&utm_content=bio_link&utm_term=coffee',
    expected: 'https://www.amazon.com.au/s?k=coffee+machine',
  },
  {
    family: 'fragment',
    input: 'https://www.amazon.com/dp/B0CHWRXH8B#customerReviews',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'fragment',
    input: 'https://www.amazon.sg/dp/B0B3PSRHHN?th=1#productDetails',
    expected: 'https://www.amazon.sg/dp/B0B3PSRHHN',
  },
  {
    family: 'fragment',
    input: 'https://www.amazon.sa/dp/B0CM5JV268/#:~:text=battery',
    expected: 'https://www.amazon.sa/dp/B0CM5JV268',
  },
  {
    family: 'm. host',
    input: 'https://m.amazon.com/dp/B0CHWRXH8B',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'm. host',
    input: 'https://m.amazon.co.uk/gp/product/B08N5WRWNW',
    expected: 'https://www.amazon.co.uk/dp/B08N5WRWNW',
  },
  {
    family: 'm. host',
    input: 'https://m.amazon.co.jp/dp/B09Y2MYL5C?th=1',
    expected: 'https://www.amazon.co.jp/dp/B09Y2MYL5C',
  },
  {
    family: 'smile. host',
    input: 'https://smile.amazon.com/dp/B0CHWRXH8B',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'smile. host',
    input: 'https://smile.amazon.co.uk/Kindle-Paperwhite/dp/B08N3TCP2F/ref=sr_1_1',
    expected: 'https://www.amazon.co.uk/dp/B08N3TCP2F',
  },
  {
    family: 'smile. host',
    input: 'https://smile.amazon.de/gp/product/3551551677?tag=old-21',
    expected: 'https://www.amazon.de/dp/3551551677',
  },
  {
    family: 'trailing slash',
    input: 'https://www.amazon.com/dp/B0CHWRXH8B/',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'trailing slash',
    input: 'https://www.amazon.com/stores/Apple/page/77D9E1F7-0337-4282-9DB6-B6B8FB2DC98D/',
    expected: 'https://www.amazon.com/stores/Apple/page/77D9E1F7-0337-4282-9DB6-B6B8FB2DC98D',
  },
  {
    family: 'trailing slash',
    input: 'https://www.amazon.com/gp/bestsellers/electronics//',
    expected: 'https://www.amazon.com/gp/bestsellers/electronics',
  },
  {
    family: 'trailing slash',
    input: 'https://amazon.com/?ref=nav_logo',
    expected: 'https://www.amazon.com/',
  },
  {
    family: 'uppercase host',
    input: 'https://WWW.AMAZON.COM/dp/B0CHWRXH8B',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'uppercase host',
    input: 'https://Www.Amazon.Co.Uk/dp/B08N5WRWNW',
    expected: 'https://www.amazon.co.uk/dp/B08N5WRWNW',
  },
  {
    family: 'uppercase host',
    input: 'https://AMAZON.IN./dp/B0BSNP46QP',
    expected: 'https://www.amazon.in/dp/B0BSNP46QP',
  },
  {
    family: 'uppercase host',
    input: 'http://Amazon.com:8080/dp/B0CHWRXH8B',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'percent-encoding',
    input: 'https://www.amazon.es/%64p/B0BDHWDR12',
    expected: 'https://www.amazon.es/dp/B0BDHWDR12',
  },
  {
    family: 'percent-encoding',
    input: 'https://www.amazon.co.jp/%E3%82%BD%E3%83%8B%E3%83%BC-WH-1000XM5/dp/B09Y2MYL5C',
    expected: 'https://www.amazon.co.jp/dp/B09Y2MYL5C',
  },
  {
    family: 'percent-encoding',
    input: 'https://www.amazon.com/dp/B0CHWRXH8B%2Fref%3Dsr_1_1',
    expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
  },
  {
    family: 'percent-encoding',
    input: 'https://www.amazon.de/s?k=k%C3%BChlschrank+a%2B%2B&i=kitchen',
    expected: 'https://www.amazon.de/s?k=k%C3%BChlschrank+a%2B%2B&i=kitchen',
  },
  {
    family: 'percent-encoding',
    input: 'https://www.amazon.com/stores/page/Caf%c3%a9%20Brands',
    expected: 'https://www.amazon.com/stores/page/Caf%C3%A9%20Brands',
  },
];

const ALL_EXAMPLES = profiles.flatMap((profile) =>
  profile.canonicalization.examples.map((example) => ({ profile, ...example })),
);

// Names every profile drops, whether through its allow-list or its dropParams.
const TRACKING_PARAM = fc.oneof(
  fc.stringMatching(/^[a-z]{1,8}$/).map((suffix) => `utm_${suffix}`),
  fc.constantFrom(
    'utm_source',
    'UTM_Medium',
    'gclid',
    'fbclid',
    'msclkid',
    '_ga',
    'srsltid',
    'igshid',
  ),
);

describe(canonicaliseUrl.name, () => {
  it.each(AMAZON_CASES)(
    'should give $expected when an Amazon $family URL is $input',
    ({ input, expected }) => {
      expect(canonicaliseUrl(amazon, input).canonicalUrl).toBe(expected);
    },
  );

  it.each(ALL_EXAMPLES.map((example) => [example.profile.merchantId, example.input, example]))(
    'should match the %s profile example when the input is %s',
    (_merchantId, _input, { profile, input, canonical }) => {
      const result = canonicaliseUrl(profile, input);
      expect(result.canonicalUrl).toBe(canonical);
      expect(result.region).not.toBeNull();
    },
  );

  it.each([
    { input: 'https://m.amazon.in/dp/B0BSNP46QP', region: 'IN' },
    { input: 'https://smile.amazon.co.uk/dp/B08N5WRWNW', region: 'GB' },
    { input: 'https://amazon.com.br/dp/B0BSNP46QP', region: 'BR' },
  ])('should report region $region when the host is in it ($input)', ({ input, region }) => {
    expect(canonicaliseUrl(amazon, input).region).toBe(region);
  });

  it('should keep the hostname and report no region when the host is not the merchant', () => {
    expect(canonicaliseUrl(amazon, 'https://Example.COM:8443/a/?utm_source=x&k=2#f')).toEqual({
      canonicalUrl: 'https://example.com/a?k=2',
      region: null,
    });
  });

  it('should accept a URL object when given one', () => {
    const url = new URL('https://M.AMAZON.COM/Thing/dp/B0CHWRXH8B?tag=x-20');
    expect(canonicaliseUrl(amazon, url).canonicalUrl).toBe('https://www.amazon.com/dp/B0CHWRXH8B');
  });

  it.each([
    {
      rule: 'keeps allow-listed params in their original order',
      merchantId: 'amazon',
      input: 'https://www.amazon.com/s?k=usb+hub&foo=bar&i=electronics&k=usb+c',
      expected: 'https://www.amazon.com/s?k=usb+hub&i=electronics&k=usb+c',
    },
    {
      rule: 'keeps unknown and repeated params in order when keepParams is null',
      merchantId: 'adidas',
      input: 'https://www.adidas.com/us/samba-og-shoes/B75806.html?b=2&utm_source=x&a=1&b=3',
      expected: 'https://www.adidas.com/us/B75806.html?b=2&a=1&b=3',
    },
    {
      rule: 'drops prefix patterns case-insensitively when keepParams is null',
      merchantId: 'adidas',
      input: 'https://www.adidas.com/us/samba-og-shoes/B75806.html?AF_siteid=1&af_sub=2&color=red',
      expected: 'https://www.adidas.com/us/B75806.html?color=red',
    },
    {
      rule: 'writes a param without value as name=',
      merchantId: 'adidas',
      input: 'https://www.adidas.com/us/search?q=samba&gift',
      expected: 'https://www.adidas.com/us/search?q=samba&gift=',
    },
    {
      rule: 'keeps a literal percent escaped',
      merchantId: 'adidas',
      input: 'https://www.adidas.com/us/search/100%25%20cotton',
      expected: 'https://www.adidas.com/us/search/100%25%20cotton',
    },
    {
      rule: 'keeps an escape that is not UTF-8 as literal text',
      merchantId: 'adidas',
      input: 'https://www.adidas.com/us/caf%E9',
      expected: 'https://www.adidas.com/us/caf%25E9',
    },
    {
      rule: 'resolves dot segments revealed by decoding',
      merchantId: 'adidas',
      input: 'https://www.adidas.com/us/a%2F..%2Fb%2F.',
      expected: 'https://www.adidas.com/us/b',
    },
    {
      rule: 'reads an encoded backslash as a slash',
      merchantId: 'amazon',
      input: 'https://www.amazon.com/dp/B0CHWRXH8B%5Cextra',
      expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
    },
    {
      rule: 'drops credentials and port',
      merchantId: 'ebay',
      input: 'http://user:secret@www.ebay.com:8443/itm/385627914351',
      expected: 'https://www.ebay.com/itm/385627914351',
    },
    {
      rule: 'honours case-insensitive rule flags',
      merchantId: 'zalando',
      input: 'https://www.zalando.de/NIKE-AIR-FORCE-NI112O0GU-A11.HTML/extra',
      expected: 'https://www.zalando.de/NIKE-AIR-FORCE-NI112O0GU-A11.html',
    },
    {
      rule: 'uses the first matching rule',
      merchantId: 'lazada',
      input: 'https://www.lazada.sg/products/x-i123456-s654321.html',
      expected: 'https://www.lazada.sg/products/i123456-s654321.html',
    },
    {
      rule: 'keeps only the params of the path rule on a page that rule matches',
      merchantId: 'coupang',
      input: 'https://www.coupang.com/vp/products/7335597976?q=airpods&itemId=18741704367&rank=1',
      expected: 'https://www.coupang.com/vp/products/7335597976?itemId=18741704367',
    },
    {
      rule: "keeps the profile's params on a page no path rule matches",
      merchantId: 'coupang',
      input: 'https://www.coupang.com/np/search?q=airpods&channel=user&itemId=1',
      expected: 'https://www.coupang.com/np/search?q=airpods&itemId=1',
    },
    {
      rule: 'keeps no param on a page whose path rule keeps none',
      merchantId: 'amazon',
      input: 'https://www.amazon.com/dp/B0CHWRXH8B?th=1&psc=1&k=airpods',
      expected: 'https://www.amazon.com/dp/B0CHWRXH8B',
    },
    {
      rule: 'drops a kept param at its default value',
      merchantId: 'ebay',
      input: 'https://www.ebay.com/itm/385627914351?var=&mkcid=16',
      expected: 'https://www.ebay.com/itm/385627914351',
    },
    {
      rule: 'drops a zero variant selector: no variant, as an empty one',
      merchantId: 'ebay',
      input: 'https://www.ebay.com/itm/385627914351?var=0&mkcid=16',
      expected: 'https://www.ebay.com/itm/385627914351',
    },
    {
      rule: 'keeps a kept param at another value',
      merchantId: 'ebay',
      input: 'https://www.ebay.com/itm/385627914351?var=654321&mkcid=16',
      expected: 'https://www.ebay.com/itm/385627914351?var=654321',
    },
    {
      rule: 'drops a default value in any case of the param name',
      merchantId: 'flipkart',
      input: 'https://www.flipkart.com/x/p/itm6ac6485515ae4?pid=MOBG1&Marketplace=FLIPKART',
      expected: 'https://www.flipkart.com/x/p/itm6ac6485515ae4?pid=MOBG1',
    },
    {
      rule: 'compares default values exactly',
      merchantId: 'flipkart',
      input: 'https://www.flipkart.com/x/p/itm6ac6485515ae4?pid=MOBG1&marketplace=flipkart',
      expected: 'https://www.flipkart.com/x/p/itm6ac6485515ae4?pid=MOBG1&marketplace=flipkart',
    },
    {
      rule: 'drops a param naming the id the path names',
      merchantId: 'best-buy',
      input: 'https://www.bestbuy.com/site/apple-airpods-pro-2/6447382.p?SKUID=6447382&st=x',
      expected: 'https://www.bestbuy.com/site/6447382.p?st=x',
    },
    {
      rule: 'keeps a param naming another id than the path',
      merchantId: 'best-buy',
      input: 'https://www.bestbuy.com/site/apple-airpods-pro-2/6447382.p?skuId=6447383',
      expected: 'https://www.bestbuy.com/site/6447382.p?skuId=6447383',
    },
    {
      rule: 'compares against a group nested in the id of the canonical path',
      merchantId: 'target',
      input: 'https://www.target.com/p/airpods/-/A%2D85978612/?preselect=85978612',
      expected: 'https://www.target.com/p/-/A-85978612',
    },
    {
      rule: 'keeps a param naming a path id when no path rule matches',
      merchantId: 'best-buy',
      input: 'https://www.bestbuy.com/site/searchpage.jsp?st=tv&skuId=6447382',
      expected: 'https://www.bestbuy.com/site/searchpage.jsp?st=tv&skuId=6447382',
    },
  ])('should behave as documented when it $rule', ({ merchantId, input, expected }) => {
    const profile = profileOf(merchantId);
    const first = canonicaliseUrl(profile, input).canonicalUrl;
    expect(first).toBe(expected);
    expect(canonicaliseUrl(profile, first).canonicalUrl).toBe(first);
  });

  it.each(['ftp://www.amazon.com/dp/B0CHWRXH8B', 'mailto:help@amazon.com', 'not a url'])(
    'should throw a TypeError when the input is %s',
    (input) => {
      // URL's own TypeError comes from outside jest's realm, so compare by name.
      let thrown: unknown;
      try {
        canonicaliseUrl(amazon, input);
      } catch (error) {
        thrown = error;
      }
      expect((thrown as Error | undefined)?.name).toBe('TypeError');
    },
  );

  it('should drop added tracking params and fragments when they are added to an example', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ALL_EXAMPLES),
        fc.array(fc.tuple(TRACKING_PARAM, fc.string({ maxLength: 12 }), fc.nat()), {
          maxLength: 5,
        }),
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        ({ profile, input, canonical }, junk, fragment) => {
          const url = new URL(input);
          const entries = [...url.searchParams];
          for (const [name, value, position] of junk) {
            entries.splice(position % (entries.length + 1), 0, [name, value]);
          }
          url.search = new URLSearchParams(entries).toString();
          url.hash = fragment ?? '';
          const once = canonicaliseUrl(profile, url).canonicalUrl;
          expect(once).toBe(canonical);
          expect(canonicaliseUrl(profile, once).canonicalUrl).toBe(once);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('should be idempotent when arbitrary params, path segments and fragments are added', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ALL_EXAMPLES),
        fc.array(
          fc.tuple(fc.string({ unit: 'binary', maxLength: 8 }), fc.string({ unit: 'binary' })),
          {
            maxLength: 4,
          },
        ),
        fc.array(fc.string({ unit: 'binary', maxLength: 8 }), { maxLength: 3 }),
        fc.string({ unit: 'binary', maxLength: 12 }),
        ({ profile, input }, params, segments, fragment) => {
          const url = new URL(input);
          for (const [name, value] of params) {
            url.searchParams.append(name, value);
          }
          url.pathname = [url.pathname, ...segments].join('/');
          url.hash = fragment;
          const once = canonicaliseUrl(profile, url).canonicalUrl;
          expect(canonicaliseUrl(profile, once).canonicalUrl).toBe(once);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
