import { buildRoutedUrl, type RoutedUrlInput } from './build-routed-url';

const base: RoutedUrlInput = {
  canonicalUrl: 'https://www.amazon.com/dp/B0CHWRXH8B?th=1',
  sourceRegion: 'US',
  targetRegion: 'US',
  targetStorefront: 'www.amazon.com',
  targetDeepLinkSupported: true,
  networkId: 'amazon_associates',
  affiliateId: 'creator-20',
  preset: 'default',
};

describe(buildRoutedUrl.name, () => {
  it('should append tracking then the preset UTM to the canonical URL', () => {
    expect(buildRoutedUrl(base)).toEqual({
      routedUrl:
        'https://www.amazon.com/dp/B0CHWRXH8B?th=1&tag=creator-20&utm_source=linkpilot&utm_medium=affiliate&utm_campaign=linkpilot_default',
      deepLinkUsed: true,
    });
  });

  it('should move the path and kept params to the winning storefront', () => {
    const { routedUrl, deepLinkUsed } = buildRoutedUrl({
      ...base,
      targetRegion: 'IN',
      targetStorefront: 'www.amazon.in',
      affiliateId: 'creator-21',
    });
    expect(routedUrl.startsWith('https://www.amazon.in/dp/B0CHWRXH8B?th=1&tag=creator-21&')).toBe(
      true,
    );
    expect(deepLinkUsed).toBe(true);
  });

  it('should send a move to a storefront without deep links to its home page', () => {
    const { routedUrl, deepLinkUsed } = buildRoutedUrl({
      ...base,
      targetRegion: 'GB',
      targetStorefront: 'www.amazon.co.uk',
      targetDeepLinkSupported: false,
    });
    expect(new URL(routedUrl).pathname).toBe('/');
    expect(new URL(routedUrl).searchParams.has('th')).toBe(false);
    expect(deepLinkUsed).toBe(false);
  });

  it('should keep the path on its own storefront even without deep-link support', () => {
    const { routedUrl, deepLinkUsed } = buildRoutedUrl({ ...base, targetDeepLinkSupported: false });
    expect(new URL(routedUrl).pathname).toBe('/dp/B0CHWRXH8B');
    expect(deepLinkUsed).toBe(false);
  });

  it.each([
    {
      preset: 'link_in_bio',
      utmOverride: undefined,
      expected: {
        utm_source: 'linkpilot',
        utm_medium: 'link_in_bio',
        utm_campaign: 'linkpilot_link_in_bio',
      },
    },
    {
      preset: 'long_form',
      utmOverride: { utm_campaign: 'black-friday', utm_content: 'hero banner' },
      expected: {
        utm_source: 'linkpilot',
        utm_medium: 'long_form',
        utm_campaign: 'black-friday',
        utm_content: 'hero banner',
      },
    },
    {
      preset: 'default',
      utmOverride: { utm_source: 'newsletter', utm_medium: '' },
      expected: { utm_source: 'newsletter', utm_campaign: 'linkpilot_default' },
    },
  ] as const)(
    'should merge the $preset UTM with the override key by key',
    ({ preset, utmOverride, expected }) => {
      const url = new URL(buildRoutedUrl({ ...base, preset, utmOverride }).routedUrl);
      const utm = Object.fromEntries(
        [...url.searchParams].filter(([name]) => name.startsWith('utm_')),
      );
      expect(utm).toEqual(expected);
    },
  );

  it("should never overwrite a network's own tracking parameter with UTM values", () => {
    const url = new URL(
      buildRoutedUrl({
        ...base,
        canonicalUrl: 'https://www.asos.com/prd/123456',
        sourceRegion: 'GLOBAL',
        targetRegion: 'GLOBAL',
        targetStorefront: 'www.asos.com',
        networkId: 'awin',
        affiliateId: '991',
        utmOverride: { utm_source: 'instagram' },
      }).routedUrl,
    );
    expect(url.searchParams.get('awc')).toBe('lp_991');
    expect(url.searchParams.getAll('utm_source')).toEqual(['awin']);
    expect(url.searchParams.get('utm_medium')).toBe('affiliate');
  });

  it('should keep percent-encoded paths as the canonicaliser wrote them', () => {
    const { routedUrl } = buildRoutedUrl({
      ...base,
      canonicalUrl: 'https://www.amazon.co.jp/%E3%82%BD%E3%83%8B%E3%83%BC/b?node=1',
      sourceRegion: 'JP',
      targetRegion: 'JP',
      targetStorefront: 'www.amazon.co.jp',
    });
    expect(
      routedUrl.startsWith('https://www.amazon.co.jp/%E3%82%BD%E3%83%8B%E3%83%BC/b?node=1&tag='),
    ).toBe(true);
  });
});
