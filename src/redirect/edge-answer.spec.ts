import fc from 'fast-check';
import { EDGE_RETRY_AFTER_SECONDS, renderEdgeAnswer, toHeaderSafeLocation } from './edge-answer';

/** What node:http accepts in a header value without throwing, and what we promise: no space. */
const HEADER_SAFE = /^[\x21-\x7e]*$/;

describe(toHeaderSafeLocation.name, () => {
  it.each([
    ['a serialised URL, unchanged', 'https://a.example/p?q=1', 'https://a.example/p?q=1'],
    ['non-ASCII, re-serialised', 'https://a.example/ä?q=€', 'https://a.example/%C3%A4?q=%E2%82%AC'],
    ['an IDN host, in punycode', 'https://café.example/', 'https://xn--caf-dma.example/'],
    ['CR/LF, dropped as the URL parser does', 'https://a.example/a\r\nb', 'https://a.example/ab'],
    ['no URL at all, percent-encoded', 'not a url ✓', 'not%20a%20url%20%E2%9C%93'],
    ['a lone surrogate', 'x\ud800', 'x%EF%BF%BD'],
  ])('should write %s', (_name, location, expected) => {
    expect(toHeaderSafeLocation(location)).toBe(expected);
  });

  it('should make any string header-safe, and keep a URL a URL', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.webUrl()), (location) => {
        const safe = toHeaderSafeLocation(location);
        expect(safe).toMatch(HEADER_SAFE);
        expect(!URL.canParse(location) || URL.canParse(safe)).toBe(true);
      }),
    );
  });

  it('should make the Location of a 429 and its page header-safe too', () => {
    const rendered = renderEdgeAnswer(
      {
        kind: 'too_many_requests',
        location: 'https://a.example/"><script>?q=é',
        retryAfterSeconds: 60,
      },
      'REQ',
    );
    expect(rendered.headers.location).toBe('https://a.example/%22%3E%3Cscript%3E?q=%C3%A9');
    expect(rendered.body).not.toContain('<script>');
  });
});

describe(renderEdgeAnswer.name, () => {
  it('should answer a database outage 503 DATABASE_UNAVAILABLE with a short Retry-After, in the envelope', () => {
    const rendered = renderEdgeAnswer({ kind: 'database_unavailable' }, 'REQ');

    expect(rendered.status).toBe(503);
    expect(rendered.headers['retry-after']).toBe(String(EDGE_RETRY_AFTER_SECONDS));
    expect(rendered.headers['cache-control']).toBe('private, no-store');
    expect(JSON.parse(rendered.body)).toEqual({
      success: false,
      error: { code: 'DATABASE_UNAVAILABLE', message: expect.any(String), requestId: 'REQ' },
    });
  });

  it('should answer an expired link without an expired URL 410 with a small page, never cached', () => {
    const rendered = renderEdgeAnswer({ kind: 'gone' }, 'REQ');

    expect(rendered.status).toBe(410);
    expect(rendered.headers).toEqual({
      'cache-control': 'private, no-store',
      'content-type': 'text/html; charset=utf-8',
    });
    expect(rendered.body).toContain('This link has expired.');
  });
});
