import { buildAmazonUrl, createLinkViaApi } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { edgeVisit } from '../support/edge-visit';
import { startTestApp, TestApp } from '../support/test-app';

describe('Query forwarding (e2e)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp({ PROBES_ENABLED: 'false' });
    api = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
  });
  afterAll(() => t.close());

  const visit = async (path: string): Promise<URL> => {
    const response = await edgeVisit(t, path, { 'CF-IPCountry': 'US' });
    expect(response.status).toBe(302);
    return new URL(response.headers.location);
  };

  it("should append the visitor's parameters but never let them replace the affiliate tag", async () => {
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl(), forwardQuery: true });
    expect(link.forwardQuery).toBe(true);
    const plain = await visit(`/r/${link.linkId}`);

    const forwarded = await visit(
      `/r/${link.linkId}?tag=thief-20&utm_source=thief&color=red&awc=x&q=caf%C3%A9`,
    );

    expect(forwarded.searchParams.getAll('tag')).toEqual([plain.searchParams.get('tag')]);
    expect(forwarded.searchParams.getAll('utm_source')).toEqual([
      plain.searchParams.get('utm_source'),
    ]);
    expect(forwarded.searchParams.get('color')).toBe('red');
    expect(forwarded.searchParams.get('q')).toBe('café');
    expect(forwarded.searchParams.has('awc')).toBe(false);
    expect(forwarded.href.startsWith(plain.href)).toBe(true);
  });

  it('should drop every name that is not plain, so no loose parser reads a protected one', async () => {
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl(), forwardQuery: true });
    const plain = await visit(`/r/${link.linkId}`);
    const spellings = [
      '%20tag',
      'tag[]',
      'tag.',
      'tag%00',
      'aff.id',
      'affiliate.id',
      'affiliate_id[]',
      'utm.source',
    ];

    const forwarded = await visit(
      `/r/${link.linkId}?${spellings.map((name) => `${name}=evil`).join('&')}&color=red`,
    );

    expect(forwarded.href).toBe(`${plain.href}&color=red`);
  });

  it('should ignore the visitor query of a link that does not forward, until PATCH turns it on', async () => {
    const link = await createLinkViaApi(api, { originalUrl: buildAmazonUrl() });
    expect(link.forwardQuery).toBe(false);

    const ignored = await visit(`/r/${link.linkId}?color=red`);
    await api.patch(`/v1/links/${link.linkId}`, { forwardQuery: true }).expect(200);
    const forwarded = await visit(`/r/${link.linkId}?color=red`);

    expect(ignored.searchParams.has('color')).toBe(false);
    expect(forwarded.searchParams.get('color')).toBe('red');
  });

  it('should forward to the original URL of a passthrough link too', async () => {
    const link = await createLinkViaApi(api, {
      originalUrl: 'https://shop.example.com/p/1?size=m',
      forwardQuery: true,
    });

    const forwarded = await visit(`/r/${link.linkId}?size=xl&gclid=abc`);

    expect(forwarded.href).toBe('https://shop.example.com/p/1?size=m&gclid=abc');
  });

  it('should refuse a forwardQuery that is not a boolean', async () => {
    const response = await api.post('/v1/links', {
      originalUrl: buildAmazonUrl(),
      forwardQuery: 'yes',
    });

    expect(response.status).toBe(400);
    expect(Object.keys(response.body.error.details)).toEqual(['forwardQuery']);
  });
});
