import { join } from 'node:path';
import { checkKnowledgeBase } from './check-knowledge-base';
import { buildMerchantHostIndex, normalizeHostname } from './merchant-host-index';
import type { MerchantProfile } from './merchant-profile';

const SEEDS_DIR = join(__dirname, '../../../seeds/merchants');
const { profiles } = checkKnowledgeBase(SEEDS_DIR);
const index = buildMerchantHostIndex(profiles);

const EVERY_HOSTNAME = profiles.flatMap((profile) =>
  Object.entries(profile.regions).flatMap(([region, { hostnames }]) =>
    hostnames.map((hostname) => ({ hostname, merchantId: profile.merchantId, region })),
  ),
);

describe(buildMerchantHostIndex.name, () => {
  it('should cover every domain of every profile when built from the seeds', () => {
    const domains = profiles.flatMap((profile) => profile.domains);
    expect(EVERY_HOSTNAME.map(({ hostname }) => hostname).sort()).toEqual([...domains].sort());
  });

  it.each(EVERY_HOSTNAME)(
    'should resolve $hostname to $merchantId $region when given the hostname as stored',
    ({ hostname, merchantId, region }) => {
      expect(index.resolve(hostname)).toEqual({ merchantId, region });
    },
  );

  it.each(EVERY_HOSTNAME)(
    'should resolve $hostname when it is uppercase, has a trailing dot or a port',
    ({ hostname, merchantId, region }) => {
      for (const variant of [
        hostname.toUpperCase(),
        `${hostname}.`,
        `${hostname}:443`,
        `${hostname.toUpperCase()}.:8080`,
      ]) {
        expect(index.resolve(variant)).toEqual({ merchantId, region });
      }
    },
  );

  it.each([
    { hostname: 'amzn.to', why: 'short links are out of scope' },
    { hostname: 'a.co', why: 'short links are out of scope' },
    { hostname: 'music.apple.com', why: 'not claimed yet' },
    { hostname: 'articulo.mercadolibre.com.mx', why: 'not claimed yet' },
    { hostname: 'foo.amazon.com', why: 'subdomains are not wildcards' },
    { hostname: 'amazon.com.evil.example', why: 'suffixes do not match' },
    { hostname: 'notamazon.com', why: 'no substring match' },
    { hostname: '', why: 'empty' },
    { hostname: '[::1]:443', why: 'IP literal' },
  ])('should return null when the hostname is $hostname ($why)', ({ hostname }) => {
    expect(index.resolve(hostname)).toBeNull();
  });

  it('should keep the first claim when two profiles list one hostname', () => {
    const [first, second] = profiles;
    const clash: MerchantProfile = {
      ...second,
      regions: {
        ...second.regions,
        XX: { ...Object.values(second.regions)[0], hostnames: [first.domains[0]] },
      },
    };
    const clashing = buildMerchantHostIndex([first, clash]);
    expect(clashing.resolve(first.domains[0])?.merchantId).toBe(first.merchantId);
  });

  it('should return a copy when the caller mutates the result', () => {
    const match = index.resolve('www.amazon.com') ?? { merchantId: '', region: null };
    match.merchantId = 'changed';
    expect(index.resolve('www.amazon.com')).toEqual({ merchantId: 'amazon', region: 'US' });
  });
});

describe(normalizeHostname.name, () => {
  it.each([
    { input: 'WWW.Amazon.COM', expected: 'www.amazon.com' },
    { input: 'www.amazon.com.', expected: 'www.amazon.com' },
    { input: 'www.amazon.com:443', expected: 'www.amazon.com' },
    { input: ' www.amazon.com.:80 ', expected: 'www.amazon.com' },
    { input: '[2001:DB8::1]:443', expected: '[2001:db8::1]' },
  ])('should give $expected when the input is "$input"', ({ input, expected }) => {
    expect(normalizeHostname(input)).toBe(expected);
  });
});
