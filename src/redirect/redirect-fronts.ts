import { Logger } from '@nestjs/common';
import proxyaddr from '@fastify/proxy-addr';
import type { FastifyInstance } from 'fastify';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AppError } from '../common/errors/app-error';
import { toErrorBody } from '../common/errors/all-exceptions.filter';
import { isDatabaseUnavailable, isStatementTimeout } from '../common/errors/database-unavailable';
import { newUlid } from '../common/ids';
import type { ShutdownGate } from '../common/http/shutdown-gate';
import type { TrustFunction } from '../common/http/trust-proxy';
import { ThrottledLogger } from '../common/logging/throttled-logger';
import type { AppMetrics } from '../metrics/app-metrics';
import type { VerifiedHost } from '../domains/verified-host';
import { brandedAnswerOf, BrandedFront, BrandedVisit } from './branded-front';
import { EdgeAnswer, renderEdgeAnswer, RenderedEdgeAnswer } from './edge-answer';
import type { EdgeRequest, RedirectHandler } from './redirect.handler';

/** A plain visitor click: /r/ and an id of letters and digits (ULIDs, in either case). */
const PLAIN_CLICK_PATH = /^\/r\/([0-9A-Za-z]{1,64})(?:\?|$)/;

/** While PostgreSQL is down, the edge says so at most this often, not once per click. */
const OUTAGE_WARNING_INTERVAL_MS = 10_000;

export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The HTTP side of GET /r/:linkId, outside /v1 and without Nest guards, pipes or
 * interceptors, in two fronts over the same RedirectHandler. Plain GET and HEAD clicks are
 * answered straight from node:http, ahead of Fastify's routing, hooks and reply machinery,
 * which cost about a quarter of a click's CPU in `npm run bench`. Every other request to /r/
 * goes to a bare Fastify route: clicks that need what a Fastify hook does (CORS for a request
 * with an Origin, the HTTPS redirect behind a proxy) and ids that need decoding. The raw
 * front's answers carry the headers those hooks add to every answer: X-Request-Id and
 * Vary: Origin (http-hooks.ts).
 */
export class RedirectFronts {
  private readonly logger = new Logger('Redirect');
  private readonly outageWarnings = new ThrottledLogger(this.logger, OUTAGE_WARNING_INTERVAL_MS);
  private handler: RedirectHandler | null = null;
  private branded: BrandedFront | null = null;
  /** Branded visits handed to the Fastify route, rewritten to /r/<id> (brandedVisit). */
  private readonly brandedRequests = new WeakMap<IncomingMessage, VerifiedHost>();

  constructor(
    private readonly options: {
      requireHttps: boolean;
      isTrusted: TrustFunction;
      metrics: AppMetrics;
      /** Once the server is closing, it answers every new request before either front. */
      shutdownGate: ShutdownGate;
    },
  ) {}

  /** Fastify's `serverFactory`: a node:http server that sends plain clicks here first. */
  createServer(fastifyListener: RequestListener, fastifyOptions: Record<string, unknown>): Server {
    const gate = this.options.shutdownGate;
    const server = createServer(
      gate.guard((request, response) => {
        const linkId = this.handler === null ? null : this.plainClickLinkId(request);
        if (linkId !== null) {
          this.serveRaw(this.handler as RedirectHandler, linkId, request, response);
        } else if (!this.brandedVisit(request, response, fastifyListener)) {
          fastifyListener(request, response);
        }
      }),
    );
    gate.watch(server);
    // What Fastify sets on the servers it creates (fastify/lib/server.js), from its resolved
    // options (defaults included).
    const option = (name: string): number | undefined => {
      const value = fastifyOptions[name];
      return typeof value === 'number' ? value : undefined;
    };
    server.keepAliveTimeout = option('keepAliveTimeout') ?? server.keepAliveTimeout;
    server.requestTimeout = option('requestTimeout') ?? server.requestTimeout;
    server.setTimeout(option('connectionTimeout') ?? 0);
    const maxRequestsPerSocket = option('maxRequestsPerSocket') ?? 0;
    if (maxRequestsPerSocket > 0) server.maxRequestsPerSocket = maxRequestsPerSocket;
    return server;
  }

  /**
   * Mounts the Fastify route and starts the raw front; until then every request goes to
   * Fastify (which answers 404 for /r/ before boot).
   */
  attach(handler: RedirectHandler, fastify: FastifyInstance, branded?: BrandedFront): void {
    fastify.get<{ Params: { linkId: string } }>(
      '/r/:linkId',
      {
        // This route lives outside Nest, so Nest's exception filter never sees its errors:
        // answer them in the project's envelope here, never in Fastify's own error shape.
        errorHandler: (error, request, reply) => {
          // Our own hooks' refusals (say, 414 from the request-target bound) keep their code.
          if (error instanceof AppError) {
            void reply
              .status(error.status)
              .headers({ 'cache-control': 'private, no-store' })
              .send(toErrorBody(error, String(request.id)));
            return;
          }
          const answer: EdgeAnswer =
            clientErrorStatusOf(error) === undefined
              ? this.answerFailure(error, `${request.method} /r/`, String(request.id))
              : NOT_FOUND;
          const rendered = renderEdgeAnswer(answer, String(request.id));
          this.options.metrics.countRedirect(answer.kind, reply.elapsedTime);
          void reply.status(rendered.status).headers(rendered.headers).send(rendered.body);
        },
      },
      async (request, reply) => {
        const domain = this.brandedRequests.get(request.raw);
        const linkAnswer = await handler.answer(
          this.edgeRequest(request.params.linkId, request.raw, request.ip),
        );
        const answer = domain === undefined ? linkAnswer : brandedAnswerOf(linkAnswer, domain);
        const rendered = renderEdgeAnswer(answer, String(request.id));
        this.options.metrics.countRedirect(answer.kind, reply.elapsedTime);
        return reply.status(rendered.status).headers(rendered.headers).send(rendered.body);
      },
    );
    this.branded = branded ?? null;
    this.handler = handler;
  }

  private plainClickLinkId(request: IncomingMessage): string | null {
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    const match = PLAIN_CLICK_PATH.exec(request.url ?? '');
    if (match === null) return null;
    if (!this.isPlainVisit(request)) return null;
    return match[1];
  }

  /** No Origin (CORS) and no HTTPS redirect to decide: what the raw front may answer. */
  private isPlainVisit(request: IncomingMessage): boolean {
    if (request.headers.origin !== undefined) return false;
    return !(this.options.requireHttps && request.headers['x-forwarded-proto'] !== undefined);
  }

  /**
   * A click on a branded domain's `/<slug>` (branded-front.ts), answered like `/r/<id>`: on
   * the raw front when plain, else by the Fastify route, the request rewritten to
   * `/r/<id>?<query>` so that its hooks apply as to any click. False: not one (the request
   * goes on as today).
   */
  private brandedVisit(
    request: IncomingMessage,
    response: ServerResponse,
    fastifyListener: RequestListener,
  ): boolean {
    const handler = this.handler;
    const visit = handler === null || this.branded === null ? null : this.branded.visitOf(request);
    if (visit === null) return false;
    const serve = ({ domain, linkId }: BrandedVisit): void => {
      if (this.isPlainVisit(request)) {
        this.serveRaw(handler as RedirectHandler, linkId ?? '-', request, response, domain);
        return;
      }
      const url = request.url ?? '';
      const queryStart = url.indexOf('?');
      request.url = `/r/${linkId ?? '-'}${queryStart === -1 ? '' : url.slice(queryStart)}`;
      this.brandedRequests.set(request, domain);
      fastifyListener(request, response);
    };
    if (!(visit instanceof Promise)) {
      serve(visit);
      return true;
    }
    const requestId = newUlid();
    const startedAtMs = performance.now();
    visit.then(serve, (error: unknown) => {
      const answer = this.answerFailure(error, `${request.method} ${request.url}`, requestId);
      writeSafely(response, answer, requestId, this.logger, this.options.metrics, startedAtMs);
    });
    return true;
  }

  /** Edge headers are believed only from a trusted proxy; the client is TRUST_PROXY's. */
  private edgeRequest(linkId: string, request: IncomingMessage, clientIp: string): EdgeRequest {
    const url = request.url ?? '';
    const queryStart = url.indexOf('?');
    return {
      linkId,
      query: queryStart === -1 ? '' : url.slice(queryStart + 1),
      isHead: request.method === 'HEAD',
      headers: request.headers,
      isFromTrustedProxy: this.options.isTrusted(request.socket.remoteAddress ?? '', 0),
      clientIp,
    };
  }

  private serveRaw(
    handler: RedirectHandler,
    linkId: string,
    request: IncomingMessage,
    response: ServerResponse,
    domain?: VerifiedHost,
  ): void {
    const startedAtMs = performance.now();
    const requestId = newUlid();
    const metrics = this.options.metrics;
    const fail = (error: unknown): void => {
      const answer = this.answerFailure(error, `${request.method} /r/${linkId}`, requestId);
      writeSafely(response, answer, requestId, this.logger, metrics, startedAtMs);
    };
    const answerWith = (answer: EdgeAnswer): void => {
      const served = domain === undefined ? answer : brandedAnswerOf(answer, domain);
      writeSafely(response, served, requestId, this.logger, metrics, startedAtMs);
    };
    try {
      const clientIp = proxyaddr(request, this.options.isTrusted);
      handler.answer(this.edgeRequest(linkId, request, clientIp)).then(answerWith, fail);
    } catch (error) {
      fail(error);
    }
  }

  /**
   * What a click that failed answers, on either front: PostgreSQL down or stalled while the
   * click needed it (a link or creator not cached yet) is a 503 with Retry-After, logged once
   * per interval as it fails every such click; anything else is a 500, logged each time. A
   * statement cut off at its timeout answers the visitor the same 503: a click is retried
   * by hand, whatever the cause.
   */
  private answerFailure(error: unknown, what: string, requestId: string): EdgeAnswer {
    if (isDatabaseUnavailable(error) || isStatementTimeout(error)) {
      this.outageWarnings.warn(
        'database',
        'PostgreSQL unavailable: clicks on links or creators not cached answer 503',
        error,
      );
      return DATABASE_UNAVAILABLE;
    }
    this.logger.error(`${what} failed (request ${requestId})`, error);
    return INTERNAL_ERROR;
  }
}

const INTERNAL_ERROR: EdgeAnswer = { kind: 'internal_error' };
const NOT_FOUND: EdgeAnswer = { kind: 'not_found' };
const DATABASE_UNAVAILABLE: EdgeAnswer = { kind: 'database_unavailable' };

/** A 4xx that Fastify raised for the request itself (say, an id it could not decode). */
function clientErrorStatusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * Writes an answer on the raw front. node:http throws synchronously on a header it cannot
 * write; nothing may escape from here (it would end the process for every visitor), so a
 * failed write becomes a 500 in the envelope, or a closed socket when bytes already left.
 */
function writeSafely(
  response: ServerResponse,
  answer: EdgeAnswer,
  requestId: string,
  logger: Logger,
  metrics: AppMetrics,
  startedAtMs: number,
): void {
  try {
    write(response, answer, requestId);
    metrics.countRedirect(answer.kind, performance.now() - startedAtMs);
  } catch (error) {
    logger.error(`Writing the answer to request ${requestId} failed`, error);
    metrics.countRedirect(INTERNAL_ERROR.kind, performance.now() - startedAtMs);
    try {
      if (response.headersSent) response.destroy();
      else write(response, INTERNAL_ERROR, requestId);
    } catch {
      response.destroy();
    }
  }
}

function write(response: ServerResponse, answer: EdgeAnswer, requestId: string): void {
  const rendered: RenderedEdgeAnswer = renderEdgeAnswer(answer, requestId);
  response.writeHead(rendered.status, {
    ...rendered.headers,
    'x-request-id': requestId,
    vary: 'Origin',
  });
  response.end(rendered.body);
}
