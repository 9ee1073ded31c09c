import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { DomainVerificationJob } from '../../src/domains/domain-verification.job';
import { MetricsServer } from '../../src/metrics/metrics-server';
import { buildAmazonUrl, LinkBody } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { edgeVisit } from '../support/edge-visit';
import { startTestApp, TestApp } from '../support/test-app';

interface DomainBody {
  id: string;
  hostname: string;
  verified: boolean;
  notFoundUrl: string | null;
  verification: { recordName: string; recordType: string; recordValue: string };
  lastCheckError: string | null;
}

/** A hostname of this run alone: verified hostnames stay taken in the shared database. */
const freshHostname = (label = 'links'): string =>
  `${label}-${randomBytes(5).toString('hex')}.example.com`;

const NOT_FOUND_URL = 'https://example.com/lost';

describe('Branded domains and vanity slugs (e2e)', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  let api: ApiClient;
  let metricsUrl: string;

  beforeAll(async () => {
    dns = await startDnsServer();
    t = await startTestApp({
      DNS_RESOLVERS: dns.address,
      METRICS_PORT: '0',
      CLICK_CONSUMER_ENABLED: 'false',
    });
    metricsUrl = `http://127.0.0.1:${t.app.get(MetricsServer).port()}`;
    api = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'enterprise' }));
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  const addDomain = async (
    client: ApiClient,
    body: Record<string, unknown>,
  ): Promise<DomainBody> => {
    const response = await client.post('/v1/domains', body).expect(201);
    return response.body.data.domain as DomainBody;
  };

  const publish = (domain: DomainBody): void =>
    dns.setTxt(domain.verification.recordName, [domain.verification.recordValue]);

  const verifiedDomain = async (
    client: ApiClient = api,
    body: Record<string, unknown> = {},
  ): Promise<DomainBody> => {
    const domain = await addDomain(client, { hostname: freshHostname(), ...body });
    publish(domain);
    const verified = await client.post(`/v1/domains/${domain.id}/verify`).expect(200);
    expect(verified.body.data.domain.verified).toBe(true);
    return verified.body.data.domain as DomainBody;
  };

  const createLink = async (body: Record<string, unknown>): Promise<LinkBody> => {
    const response = await api.post('/v1/links', { originalUrl: buildAmazonUrl(), ...body });
    expect(response.status).toBe(201);
    return response.body.data.link as LinkBody;
  };

  describe('domains', () => {
    it('should verify a domain on request once its TXT record holds the token', async () => {
      const domain = await addDomain(api, { hostname: freshHostname() });
      expect(domain).toMatchObject({ verified: false, lastCheckError: null });
      expect(domain.verification.recordName).toBe(`_linkpilot-challenge.${domain.hostname}`);
      expect(domain.verification.recordType).toBe('TXT');

      const missing = await api.post(`/v1/domains/${domain.id}/verify`).expect(200);
      dns.setTxt(domain.verification.recordName, ['someone-else']);
      const wrong = await api.post(`/v1/domains/${domain.id}/verify`).expect(200);
      publish(domain);
      const verified = await api.post(`/v1/domains/${domain.id}/verify`).expect(200);

      expect(missing.body.data.domain).toMatchObject({ verified: false });
      expect(missing.body.data.domain.lastCheckError).toContain('has no TXT record');
      expect(wrong.body.data.domain.lastCheckError).toContain('holds the token');
      expect(verified.body.data.domain).toMatchObject({ verified: true, lastCheckError: null });
      const listed = await api.get('/v1/domains').expect(200);
      expect(listed.body.data.items.map((item: DomainBody) => item.id)).toContain(domain.id);
      await api.get(`/v1/domains/${domain.id}`).expect(200);
    });

    it('should verify a domain from the scheduled check, and leave one without its record', async () => {
      const published = await addDomain(api, { hostname: freshHostname() });
      const unpublished = await addDomain(api, { hostname: freshHostname() });
      publish(published);

      await t.app.get(DomainVerificationJob).run();

      const first = await api.get(`/v1/domains/${published.id}`).expect(200);
      const second = await api.get(`/v1/domains/${unpublished.id}`).expect(200);
      expect(first.body.data.domain.verified).toBe(true);
      expect(second.body.data.domain.verified).toBe(false);
      expect(second.body.data.domain.lastCheckError).toContain('has no TXT record');
    });

    it('should take hostnames in any case and IDNs as punycode', async () => {
      const label = randomBytes(4).toString('hex');
      const upper = await addDomain(api, { hostname: `GO-${label}.Example.COM` });
      const idn = await addDomain(api, { hostname: `bücher-${label}.example` });
      expect(upper.hostname).toBe(`go-${label}.example.com`);
      expect(idn.hostname).toMatch(/^xn--/);
    });

    it.each([
      ['https://links.example.com'],
      ['links.example.com:8443'],
      ['127.0.0.1'],
      ['localhost'],
      ['not a host'],
    ])('should refuse the hostname %j with 400 naming it', async (hostname) => {
      const response = await api.post('/v1/domains', { hostname }).expect(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(response.body.error.details)).toEqual(['hostname']);
    });

    it("should refuse a hostname twice, and another account's verified one", async () => {
      const hostname = freshHostname();
      await addDomain(api, { hostname });
      const again = await api.post('/v1/domains', { hostname: hostname.toUpperCase() }).expect(409);
      const other = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
      const claimed = await addDomain(other, { hostname });
      publish(claimed);
      await other.post(`/v1/domains/${claimed.id}/verify`).expect(200);
      const third = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'enterprise' }));
      const taken = await third.post('/v1/domains', { hostname }).expect(409);

      expect(again.body.error.code).toBe('DOMAIN_TAKEN');
      expect(taken.body.error.code).toBe('DOMAIN_TAKEN');
    });

    it("should hold an account to its plan's count of domains", async () => {
      const client = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
      for (let index = 0; index < 10; index += 1) {
        await addDomain(client, { hostname: freshHostname() });
      }
      const refused = await client.post('/v1/domains', { hostname: freshHostname() }).expect(403);
      const pro = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'pro' }));
      const noApi = await pro.post('/v1/domains', { hostname: freshHostname() }).expect(403);

      expect(refused.body.error.code).toBe('DOMAIN_LIMIT_REACHED');
      expect(noApi.body.error.code).toBe('PUBLISHER_TIER_REQUIRED');
    });

    it("should not show another account's domain", async () => {
      const domain = await addDomain(api, { hostname: freshHostname() });
      const other = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
      const response = await other.get(`/v1/domains/${domain.id}`).expect(404);
      expect(response.body.error.code).toBe('DOMAIN_NOT_FOUND');
    });
  });

  describe('links with a slug', () => {
    it('should share a branded link as https://<domain>/<slug>, its slug lowercased', async () => {
      const domain = await verifiedDomain();
      const link = await createLink({ domain: domain.hostname.toUpperCase(), slug: 'Summer-Sale' });
      expect(link).toMatchObject({
        domain: domain.hostname,
        slug: 'summer-sale',
        linkpilotUrl: `https://${domain.hostname}/summer-sale`,
      });
      const plain = await createLink({});
      expect(plain).not.toHaveProperty('domain');
      expect(plain).not.toHaveProperty('slug');
      expect(plain.linkpilotUrl).toMatch(/\/r\/[0-9A-Z]{26}$/);
    });

    it('should refuse a slug taken on the domain in any case with 409, and free it on delete', async () => {
      const domain = await verifiedDomain();
      const first = await createLink({ domain: domain.hostname, slug: 'deal' });
      const taken = await api
        .post('/v1/links', { originalUrl: buildAmazonUrl(), domain: domain.hostname, slug: 'DEAL' })
        .expect(409);
      const other = await verifiedDomain();
      await createLink({ domain: other.hostname, slug: 'deal' });
      await api.delete(`/v1/links/${first.linkId}`).expect(200);
      await createLink({ domain: domain.hostname, slug: 'deal' });

      expect(taken.body.error.code).toBe('SLUG_TAKEN');
    });

    it.each([
      [{ slug: 'docs' }, 'slug'],
      [{ slug: 'V1' }, 'slug'],
      [{ slug: 'under_score' }, 'slug'],
      [{ slug: 'x'.repeat(65) }, 'slug'],
      [{ slug: 'fine', domain: undefined }, 'domain'],
    ])('should refuse %j with 400 naming %s', async (fields, field) => {
      const domain = await verifiedDomain();
      const response = await api
        .post('/v1/links', { originalUrl: buildAmazonUrl(), domain: domain.hostname, ...fields })
        .expect(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(response.body.error.details)).toEqual([field]);
    });

    it('should refuse an unverified domain and one of another account', async () => {
      const unverified = await addDomain(api, { hostname: freshHostname() });
      const other = createApiClient(t, await createCreatorWithKey(t.app, { plan: 'publisher' }));
      const theirs = await verifiedDomain(other);
      for (const hostname of [unverified.hostname, theirs.hostname]) {
        const response = await api
          .post('/v1/links', { originalUrl: buildAmazonUrl(), domain: hostname, slug: 'mine' })
          .expect(400);
        expect(response.body.error.details).toHaveProperty('domain');
      }
    });

    it('should take slugs in bulk, failing alone an item whose slug an earlier item took', async () => {
      const domain = await verifiedDomain();
      const response = await api
        .post('/v1/links/bulk', {
          links: [
            { originalUrl: buildAmazonUrl(), domain: domain.hostname, slug: 'one' },
            { originalUrl: buildAmazonUrl(), domain: domain.hostname, slug: 'ONE' },
            { originalUrl: buildAmazonUrl(), domain: domain.hostname, slug: 'r' },
          ],
        })
        .expect(207);
      expect(response.body.data.totalCreated).toBe(1);
      expect(response.body.data.created[0].linkpilotUrl).toBe(`https://${domain.hostname}/one`);
      expect(
        response.body.data.failed.map((item: { error: { code: string } }) => item.error.code),
      ).toEqual(['SLUG_TAKEN', 'VALIDATION_ERROR']);
    });

    it('should set, change and clear the slug on PATCH', async () => {
      const domain = await verifiedDomain();
      const link = await createLink({});
      const set = await api
        .patch(`/v1/links/${link.linkId}`, { domain: domain.hostname, slug: 'Later' })
        .expect(200);
      const changed = await api.patch(`/v1/links/${link.linkId}`, { slug: 'sooner' }).expect(200);
      const cleared = await api.patch(`/v1/links/${link.linkId}`, { slug: null }).expect(200);
      const orphan = await api.patch(`/v1/links/${link.linkId}`, { slug: 'alone' }).expect(400);

      expect(set.body.data.link.linkpilotUrl).toBe(`https://${domain.hostname}/later`);
      expect(changed.body.data.link.linkpilotUrl).toBe(`https://${domain.hostname}/sooner`);
      expect(cleared.body.data.link).not.toHaveProperty('slug');
      expect(cleared.body.data.link.linkpilotUrl).toMatch(/\/r\//);
      expect(orphan.body.error.details).toHaveProperty('domain');
    });
  });

  describe('the edge', () => {
    const visit = (hostname: string, path: string, headers: Record<string, string> = {}) =>
      edgeVisit(t, path, { Host: hostname, 'CF-IPCountry': 'US', ...headers });

    it('should route a click on <domain>/<slug> like /r/<id>, affiliate tag and analytics included', async () => {
      const domain = await verifiedDomain();
      const link = await createLink({ domain: domain.hostname, slug: 'airpods' });
      const byId = await edgeVisit(t, `/r/${link.linkId}`, { 'CF-IPCountry': 'US' });

      const branded = await visit(domain.hostname, '/AirPods');

      expect(branded.status).toBe(302);
      expect(branded.headers.location).toBe(byId.headers.location);
      const tag = new URL(link.routedUrl).searchParams.get('tag');
      expect(tag).toMatch(/^lpdemo-amazon/);
      expect(new URL(branded.headers.location).searchParams.get('tag')).toBe(tag);
      await t.app.get(ClickStreamConsumer).drainOnce();
      const analytics = await api.get(`/v1/analytics/links/${link.linkId}`).expect(200);
      expect(analytics.body.data.clicks).toBe(2);
    });

    it('should answer on both fronts: plain on the raw one, with an Origin on the Fastify route', async () => {
      const domain = await verifiedDomain();
      const link = await createLink({ domain: domain.hostname, slug: 'fronts' });
      const origin = 'https://app.linkpilot.io';

      const plain = await visit(`${domain.hostname}:443`, '/fronts?utm_term=x');
      const withOrigin = await visit(domain.hostname, '/fronts', { Origin: origin });
      const unknownWithOrigin = await visit(domain.hostname, '/nothing', { Origin: origin });

      expect(plain.status).toBe(302);
      expect(plain.headers['access-control-allow-origin']).toBeUndefined();
      expect(withOrigin.status).toBe(302);
      expect(withOrigin.headers.location).toBe(plain.headers.location);
      expect(withOrigin.headers['access-control-allow-origin']).toBe(origin);
      expect(unknownWithOrigin.status).toBe(404);
      expect(link.linkpilotUrl).toBe(`https://${domain.hostname}/fronts`);
    });

    it("should send an unknown slug to the domain's notFoundUrl, else answer 404", async () => {
      const withFallback = await verifiedDomain(api, { notFoundUrl: NOT_FOUND_URL });
      const without = await verifiedDomain();

      const redirected = await visit(withFallback.hostname, '/missing');
      const root = await visit(withFallback.hostname, '/');
      const notFound = await visit(without.hostname, '/missing');

      expect(redirected.status).toBe(302);
      expect(redirected.headers.location).toBe(NOT_FOUND_URL);
      expect(root.headers.location).toBe(NOT_FOUND_URL);
      expect(notFound.status).toBe(404);
      expect(notFound.body.error.code).toBe('LINK_NOT_FOUND');
    });

    it('should follow a slug change and a deletion at once', async () => {
      const domain = await verifiedDomain(api, { notFoundUrl: NOT_FOUND_URL });
      const link = await createLink({ domain: domain.hostname, slug: 'old' });
      expect((await visit(domain.hostname, '/old')).headers.location).not.toBe(NOT_FOUND_URL);

      await api.patch(`/v1/links/${link.linkId}`, { slug: 'new' }).expect(200);
      const old = await visit(domain.hostname, '/old');
      const renamed = await visit(domain.hostname, '/new');
      await api.delete(`/v1/links/${link.linkId}`).expect(200);
      const deleted = await visit(domain.hostname, '/new');

      expect(old.headers.location).toBe(NOT_FOUND_URL);
      expect(renamed.status).toBe(302);
      expect(renamed.headers.location).not.toBe(NOT_FOUND_URL);
      expect(deleted.headers.location).toBe(NOT_FOUND_URL);
    });

    it('should leave unverified and unknown hosts, and the reserved paths, as they are', async () => {
      const unverified = await addDomain(api, { hostname: freshHostname() });
      const domain = await verifiedDomain(api, { notFoundUrl: NOT_FOUND_URL });
      const link = await createLink({ domain: domain.hostname, slug: 'kept' });

      const onUnverified = await visit(unverified.hostname, '/kept');
      const health = await visit(domain.hostname, '/livez');
      const byId = await visit(domain.hostname, `/r/${link.linkId}`);

      expect(onUnverified.status).toBe(404);
      expect(onUnverified.body.error.code).toBe('NOT_FOUND');
      expect(health.status).toBe(200);
      expect(byId.status).toBe(302);
      expect(byId.headers.location).not.toBe(NOT_FOUND_URL);
    });

    it('should stop serving a deleted domain, its links back on /r/<id>', async () => {
      const domain = await verifiedDomain();
      const link = await createLink({ domain: domain.hostname, slug: 'gone' });

      const deleted = await api.delete(`/v1/domains/${domain.id}`).expect(200);
      const after = await visit(domain.hostname, '/gone');
      const read = await api.get(`/v1/links/${link.linkId}`).expect(200);

      expect(deleted.body.data).toMatchObject({ deleted: true, linksDetached: 1 });
      expect(after.status).toBe(404);
      expect(read.body.data.link).not.toHaveProperty('domain');
      expect(read.body.data.link.linkpilotUrl).toMatch(/\/r\//);
    });
  });

  describe('GET /internal/domains/allowed', () => {
    it('should answer 200 for a verified domain and 404 otherwise, on the internal listener only', async () => {
      const domain = await verifiedDomain();
      const unverified = await addDomain(api, { hostname: freshHostname() });
      const ask = (hostname: string) =>
        request(metricsUrl).get(`/internal/domains/allowed?domain=${encodeURIComponent(hostname)}`);

      await ask(domain.hostname).expect(200);
      await ask(domain.hostname.toUpperCase()).expect(200);
      await ask(unverified.hostname).expect(404);
      await ask('unknown.example.com').expect(404);
      await ask('').expect(404);
      await t.http.get(`/internal/domains/allowed?domain=${domain.hostname}`).expect(404);
    });
  });
});
