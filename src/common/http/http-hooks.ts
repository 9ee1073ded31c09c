import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { isAllowedOrigin } from './cors-origins';
import type { TrustFunction } from './trust-proxy';

const HEALTH_PATH = '/v1/health';
const EXPOSED_HEADERS =
  'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';

const firstHeaderValue = (value: string | string[] | undefined): string | undefined =>
  (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();

/**
 * Longest request target (path and query) served: ample for any id or list query of ours,
 * and it keeps a path that is mostly garbage from reaching the router and the validators.
 */
const MAX_REQUEST_URL_LENGTH = 8192;

/**
 * Extra origins creators declare at run time (Enterprise webhook `allowedOrigins`): each is
 * one creator's, so an actual request is admitted from it only with that creator's key.
 */
export interface DeclaredOrigins {
  /**
   * For a preflight, which carries no key (browsers never send Authorization on it), so
   * whose origin it is cannot be told: any creator's declaration admits it. That only lets
   * the browser send the actual request, whose answer it still may not read unless the
   * request's key belongs to a creator who declared the origin.
   */
  isDeclaredByAnyone(origin: string): boolean;
  /** For the actual request, once the API gate has authenticated its key. */
  isDeclaredBy(origin: string, creatorId: string): boolean;
}

const declaredOrigins = new WeakMap<FastifyInstance, DeclaredOrigins>();

/**
 * Lets a module admit more browser origins on this server than CORS_ORIGINS lists (the
 * webhooks module: origins declared in Enterprise endpoints, Authentication item 9). One
 * source per server; set after the hooks are registered, read on every request.
 */
export function setDeclaredOrigins(fastify: FastifyInstance, origins: DeclaredOrigins): void {
  declaredOrigins.set(fastify, origins);
}

/** Host names we are willing to put in a Location header. */
const SAFE_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** A host (and port up to 65535) that makes a valid https URL as it is written. */
function isSafeHost(host: string): boolean {
  if (!SAFE_HOST.test(host)) return false;
  try {
    return new URL(`https://${host}/`).host === host.toLowerCase().replace(/:443$/, '');
  } catch {
    return false;
  }
}

/**
 * Request-level HTTP behaviour that is not a route's business: the X-Request-Id on every
 * answer, the bound on the request target's length, the HTTPS redirect behind a trusted proxy,
 * and CORS (Authentication item 9).
 * Plain clicks on /r/ never reach these hooks: RedirectFronts answers them and adds the
 * same X-Request-Id and Vary: Origin itself, and leaves it to Fastify (so to these hooks)
 * whenever CORS or the HTTPS redirect could apply.
 */
export function registerHttpHooks(
  fastify: FastifyInstance,
  config: { requireHttps: boolean; corsOrigins: readonly string[] },
  isTrusted: TrustFunction,
): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', String(request.id));
    if (request.url.length > MAX_REQUEST_URL_LENGTH) {
      done(
        new AppError(
          ErrorCode.URI_TOO_LONG,
          `The request path and query are longer than ${MAX_REQUEST_URL_LENGTH} characters.`,
        ),
      );
      return;
    }
    if (config.requireHttps && redirectToHttps(request, reply, isTrusted)) return;
    const declared = declaredOrigins.get(fastify) ?? NONE_DECLARED;
    if (applyCors(request, reply, config.corsOrigins, declared)) return;
    done();
  });
  // A declared origin not in CORS_ORIGINS is admitted on the actual request once the gate has
  // set the caller (request.auth): on the answers and errors to its creator's keys only.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const origin = request.headers.origin;
    if (
      origin !== undefined &&
      request.auth !== undefined &&
      !reply.hasHeader('Access-Control-Allow-Origin') &&
      (declaredOrigins.get(fastify) ?? NONE_DECLARED).isDeclaredBy(origin, request.auth.creatorId)
    ) {
      void reply.header('Access-Control-Allow-Origin', origin);
      void reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    done(null, payload);
  });
}

/** A trusted proxy saying the client spoke plain HTTP gets a 301 to the same URL on https. */
function redirectToHttps(
  request: FastifyRequest,
  reply: FastifyReply,
  isTrusted: TrustFunction,
): boolean {
  const proto = firstHeaderValue(request.headers['x-forwarded-proto'])?.toLowerCase();
  if (proto !== 'http' || !isTrusted(request.socket.remoteAddress ?? '', 0)) return false;
  const host = firstHeaderValue(request.headers['x-forwarded-host']) ?? request.headers.host;
  if (host === undefined || !isSafeHost(host)) return false;
  void reply.redirect(`https://${host}${request.url}`, 301);
  return true;
}

const NONE_DECLARED: DeclaredOrigins = {
  isDeclaredByAnyone: () => false,
  isDeclaredBy: () => false,
};

/**
 * Sets CORS headers for CORS_ORIGINS (and, on a preflight, declared origins); answers a
 * preflight itself. Returns true when the reply was sent.
 */
function applyCors(
  request: FastifyRequest,
  reply: FastifyReply,
  allowedOrigins: readonly string[],
  declared: DeclaredOrigins,
): boolean {
  const origin = request.headers.origin;
  const path = request.url.split('?')[0];
  const isPreflight =
    request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
  if (path === HEALTH_PATH) {
    void reply.header('Access-Control-Allow-Origin', '*');
  } else if (
    origin !== undefined &&
    (isAllowedOrigin(origin, allowedOrigins) ||
      (isPreflight && declared.isDeclaredByAnyone(origin)))
  ) {
    void reply.header('Access-Control-Allow-Origin', origin);
    void reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  }
  if (path !== HEALTH_PATH) void reply.header('Vary', 'Origin');
  if (!isPreflight) return false;
  void reply
    .header('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE, OPTIONS')
    .header('Access-Control-Allow-Headers', 'Authorization, Content-Type')
    .header('Access-Control-Max-Age', '600')
    .status(204)
    .send();
  return true;
}
