import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { EdgeAnswer } from './edge-answer';
import { RedirectFronts } from './redirect-fronts';
import type { EdgeRequest, RedirectHandler } from './redirect.handler';
import { AppMetrics } from '../metrics/app-metrics';
import { ShutdownGate } from '../common/http/shutdown-gate';

/**
 * The raw front's own job, on a real server: which requests it answers and which it leaves
 * to Fastify (here a fallback that answers 299), and what it writes. The redirect's rules
 * and the Fastify route are tested end to end in test/e2e/redirect.e2e-spec.ts.
 */
describe(RedirectFronts.name, () => {
  const LINK_ID = '01HZX3J5Q8ZQ2T0W1V6S8K4N2M';
  let server: Server;
  let baseUrl: string;
  let front: RedirectFronts;
  const seen: EdgeRequest[] = [];
  let nextAnswer: () => Promise<EdgeAnswer>;

  const handler = {
    answer: (request: EdgeRequest) => {
      seen.push(request);
      return nextAnswer();
    },
  } as unknown as RedirectHandler;

  const start = async (options: { requireHttps: boolean }, fastifyOptions = {}) => {
    front = new RedirectFronts({
      ...options,
      isTrusted: (address) => address === '127.0.0.1',
      metrics: new AppMetrics({ collectProcessMetrics: false }),
      shutdownGate: new ShutdownGate(),
    });
    server = front.createServer((_request, response) => {
      response.writeHead(299, { 'x-served-by': 'fastify' });
      response.end();
    }, fastifyOptions);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeEach(() => {
    seen.length = 0;
    fastifyRoutes.length = 0;
    nextAnswer = () => Promise.resolve({ kind: 'redirect', location: 'https://shop.example/p' });
  });
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  /** Attaches the handler; the Fastify side only records the route it is given. */
  const fastifyRoutes: string[] = [];
  const attach = () =>
    front.attach(handler, {
      get: (path: string) => fastifyRoutes.push(path),
    } as unknown as FastifyInstance);

  const get = (path: string, init: RequestInit = {}) =>
    fetch(`${baseUrl}${path}`, { redirect: 'manual', ...init });

  it('should leave every request to Fastify until a handler is attached', async () => {
    await start({ requireHttps: false });
    expect((await get(`/r/${LINK_ID}`)).status).toBe(299);
    attach();
    expect(fastifyRoutes).toEqual(['/r/:linkId']);
    expect((await get(`/r/${LINK_ID}`)).status).toBe(302);
  });

  it('should answer plain GET and HEAD clicks itself, with the client address TRUST_PROXY gives', async () => {
    await start({ requireHttps: false });
    attach();
    const response = await get(`/r/${LINK_ID}?utm_source=x`, {
      headers: { 'x-forwarded-for': '203.0.113.9', 'user-agent': 'UA' },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://shop.example/p');
    expect(response.headers.get('vary')).toBe('Origin');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9A-Z]{26}$/);
    expect((await get(`/r/${LINK_ID.toLowerCase()}`, { method: 'HEAD' })).status).toBe(302);
    const facts = seen.map(({ linkId, isHead, isFromTrustedProxy, clientIp }) => ({
      linkId,
      isHead,
      isFromTrustedProxy,
      clientIp,
    }));
    expect(facts).toEqual([
      { linkId: LINK_ID, isHead: false, isFromTrustedProxy: true, clientIp: '203.0.113.9' },
      {
        linkId: LINK_ID.toLowerCase(),
        isHead: true,
        isFromTrustedProxy: true,
        clientIp: '127.0.0.1',
      },
    ]);
    expect(seen[0].headers['user-agent']).toBe('UA');
  });

  it.each([
    ['another method', `/r/${LINK_ID}`, { method: 'POST' }],
    ['an id to decode', `/r/%30${LINK_ID.slice(1)}`, {}],
    ['a longer path', `/r/${LINK_ID}/more`, {}],
    ['another path', '/v1/health', {}],
    ['an Origin (CORS)', `/r/${LINK_ID}`, { headers: { origin: 'https://app.example' } }],
  ])('should leave a request with %s to Fastify', async (_case, path, init) => {
    await start({ requireHttps: false });
    attach();
    const response = await get(path, init);
    expect(response.status).toBe(299);
    expect(seen).toHaveLength(0);
  });

  it('should leave a click with X-Forwarded-Proto to Fastify only when HTTPS is required', async () => {
    await start({ requireHttps: true });
    attach();
    const headers = { 'x-forwarded-proto': 'http' };
    expect((await get(`/r/${LINK_ID}`, { headers })).status).toBe(299);
    expect((await get(`/r/${LINK_ID}`)).status).toBe(302);
  });

  it('should answer 500 with the error envelope when the handler fails', async () => {
    await start({ requireHttps: false });
    attach();
    nextAnswer = () => Promise.reject(new Error('boom'));
    const response = await get(`/r/${LINK_ID}`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      success: false,
      error: {
        code: 'INTERNAL_ERROR',
        message: 'An unexpected error occurred.',
        requestId: response.headers.get('x-request-id'),
      },
    });
  });

  it('should answer 500 in the envelope and keep serving when writing the answer throws', async () => {
    await start({ requireHttps: false });
    attach();
    // An answer node:http cannot write (renderEdgeAnswer knows no such kind): the write throws.
    nextAnswer = () => Promise.resolve({ kind: 'unknown' } as unknown as EdgeAnswer);
    const response = await get(`/r/${LINK_ID}`);
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'INTERNAL_ERROR',
    );
    nextAnswer = () => Promise.resolve({ kind: 'redirect', location: 'https://shop.example/p' });
    expect((await get(`/r/${LINK_ID}`)).status).toBe(302);
  });

  it('should write a header-safe Location for a URL with raw non-ASCII and control characters', async () => {
    await start({ requireHttps: false });
    attach();
    nextAnswer = () =>
      Promise.resolve({ kind: 'redirect', location: 'https://shop.example/p?kw=café€\r\nX-A: 1' });
    const response = await get(`/r/${LINK_ID}`);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(
      'https://shop.example/p?kw=caf%C3%A9%E2%82%ACX-A:%201',
    );
    expect(response.headers.get('x-a')).toBeNull();
  });

  it('should write a 429 with its page and no body on HEAD', async () => {
    await start({ requireHttps: false });
    attach();
    nextAnswer = () =>
      Promise.resolve({
        kind: 'too_many_requests',
        location: 'https://shop.example/p?a=1&b="2"',
        retryAfterSeconds: 60,
      });
    const response = await get(`/r/${LINK_ID}`);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('60');
    expect(await response.text()).toContain('href="https://shop.example/p?a=1&#38;b=&#34;2&#34;"');
    const head = await get(`/r/${LINK_ID}`, { method: 'HEAD' });
    expect(head.status).toBe(429);
    expect(await head.text()).toBe('');
  });

  it('should apply the server settings Fastify resolved', async () => {
    await start({ requireHttps: false }, { keepAliveTimeout: 72_000, requestTimeout: 5_000 });
    expect(server.keepAliveTimeout).toBe(72_000);
    expect(server.requestTimeout).toBe(5_000);
  });
});
