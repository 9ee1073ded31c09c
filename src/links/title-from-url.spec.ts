import fc from 'fast-check';
import { titleFromUrl } from './title-from-url';

describe(titleFromUrl.name, () => {
  it.each([
    [
      'https://www.amazon.com/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12',
      'Apple AirPods Pro 2nd Generation',
    ],
    [
      'https://www.flipkart.com/apple-iphone-15-black-128-gb/p/itm6ac6485515ae4?pid=X',
      'Apple iphone 15 black 128 gb',
    ],
    ['https://www.etsy.com/listing/123456/handmade_leather_wallet', 'Handmade leather wallet'],
    [
      'https://www.asos.com/nike/nike-air-max-90-trainers/prd/2030.html',
      'Nike air max 90 trainers',
    ],
    ['https://www.zalando.de/schuhe-f%C3%BCr-damen-ab123.html', 'Schuhe für damen ab123'],
  ])('should read the slug of %s', (url, title) => {
    expect(titleFromUrl(url, null)).toBe(title);
  });

  it.each([
    ['https://www.amazon.com/dp/B0BDHWDR12', 'Amazon', 'Amazon product'],
    ['https://www.ebay.com/itm/1234567890', null, 'ebay.com product'],
    ['not a url', null, 'Untitled link'],
  ])('should fall back when %s has no slug', (url, merchant, title) => {
    expect(titleFromUrl(url, merchant)).toBe(title);
  });

  it.each([
    ['https://www.amazon.com/Some-P%00roduct-Name/dp/B0AAAA0AAA', 'Some P roduct Name'],
    ['https://shop.example.com/red-%0D%0Ashoes-sale', 'Red shoes sale'],
  ])('should turn the control characters of %s into spaces', (url, title) => {
    expect(titleFromUrl(url, null)).toBe(title);
  });

  it('should never hold a control character, whatever the path decodes to', () => {
    const segment = fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('-', '%00')));
    fc.assert(
      fc.property(fc.array(segment.map((parts) => parts.join(''))), (segments) => {
        const title = titleFromUrl(`https://shop.example.com/${segments.join('/')}`, null);
        expect(title).not.toMatch(/\p{Cc}/u);
      }),
    );
  });

  it('should never exceed 300 characters', () => {
    const slug = Array.from({ length: 200 }, () => 'word').join('-');
    expect(titleFromUrl(`https://shop.example.com/${slug}`, null)).toHaveLength(300);
  });
});
