import * as fc from 'fast-check';
import { clickSourceOf, hasQrMarker, withQrMarker } from './click-source';

describe(hasQrMarker.name, () => {
  it.each([
    ['qr=1', true],
    ['qr=1&utm_source=x', true],
    ['utm_source=x&qr=1', true],
    ['a=1&qr=1&b=2', true],
    ['', false],
    ['qr=10', false],
    ['xqr=1', false],
    ['a=qr=1', false],
    ['qr=1x&b=2', false],
    ['b=2&qr=0', false],
    ['QR=1', false],
  ])('should answer for %p: %p', (query, expected) => {
    expect(hasQrMarker(query)).toBe(expected);
  });

  it('should find the marker exactly when one pair is qr=1', () => {
    const pair = fc.oneof(
      fc.constant('qr=1'),
      fc.constantFrom('qr=2', 'qr', 'q=1', 'qr=11', 'a=b', 'aqr=1', 'qr=1a'),
    );
    fc.assert(
      fc.property(fc.array(pair, { minLength: 1, maxLength: 5 }), (pairs) => {
        const query = pairs.join('&');
        expect(hasQrMarker(query)).toBe(pairs.includes('qr=1'));
      }),
    );
  });
});

describe(clickSourceOf.name, () => {
  it('should be qr with the marker and link without', () => {
    expect(clickSourceOf('qr=1')).toBe('qr');
    expect(clickSourceOf('')).toBe('link');
    expect(clickSourceOf('utm=x')).toBe('link');
  });
});

describe(withQrMarker.name, () => {
  it.each([
    [
      'https://go.example/r/01JQ2V6D8K3M5N7P9R1S3T5V7X',
      'https://go.example/r/01JQ2V6D8K3M5N7P9R1S3T5V7X?qr=1',
    ],
    ['https://shop.example.com/summer-sale', 'https://shop.example.com/summer-sale?qr=1'],
    ['https://shop.example.com/s?a=b', 'https://shop.example.com/s?a=b&qr=1'],
  ])('should mark %s', (url, expected) => {
    expect(withQrMarker(url)).toBe(expected);
  });

  it('should give a query the edge reads as a QR scan', () => {
    const marked = new URL(withQrMarker('https://shop.example.com/s?a=b'));
    expect(clickSourceOf(marked.search.slice(1))).toBe('qr');
  });
});
