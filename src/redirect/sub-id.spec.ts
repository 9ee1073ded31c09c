import { subIdUrlPrefixOf } from './sub-id';

describe('subIdUrlPrefixOf', () => {
  it("should end a routed URL's query with the network's sub-id parameter", () => {
    expect(
      subIdUrlPrefixOf('https://www.amazon.com/dp/B0BDHWDR12?tag=lp-20', 'amazon_associates'),
    ).toBe('https://www.amazon.com/dp/B0BDHWDR12?tag=lp-20&ascsubtag=');
    expect(subIdUrlPrefixOf('https://shop.example/p', 'impact')).toBe(
      'https://shop.example/p?subId1=',
    );
    expect(subIdUrlPrefixOf('https://shop.example/p?', 'cj')).toBe('https://shop.example/p?sid=');
  });

  it('should give none without a network, or with a fragment', () => {
    expect(subIdUrlPrefixOf('https://shop.example/p', null)).toBeNull();
    expect(subIdUrlPrefixOf('https://shop.example/p?a=1#top', 'awin')).toBeNull();
  });

  it('should make a URL whose sub-id parameter reads back as the record id', () => {
    const prefix = subIdUrlPrefixOf('https://www.awin1.com/cread.php?awinmid=1&awc=lp_x', 'awin');
    const url = new URL(`${prefix}01JD5ZQ7X6M3W1H8K2C4N9P0RT`);

    expect(url.searchParams.get('clickref')).toBe('01JD5ZQ7X6M3W1H8K2C4N9P0RT');
    expect(url.searchParams.get('awc')).toBe('lp_x');
  });
});
